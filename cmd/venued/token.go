package main

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/hex"
	"flag"
	"fmt"
	"io"
	"net"
	"time"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/api/auth"
	"github.com/gridvenue/venue/runtime"
)

// runToken is "venued token": it mints a did:key identity (or reuses one
// from --seed) and prints a bearer token self-issued by it for the venue at
// --url, as shell assignments: eval "$(venued token)" sets DID, SEED and
// TOKEN.
func runToken(args []string, getenv func(string) string, out io.Writer) error {
	fs := flag.NewFlagSet("venued token", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	base := fs.String("url", "", "public base URL of the venue the token is for (default $VENUE_URL, else http:// and $VENUE_LISTEN, else http://127.0.0.1:8080)")
	seedHex := fs.String("seed", "", "64 hex digits: mint for this identity instead of a new one")
	ttl := new(24 * time.Hour)
	fs.Func("ttl", "how long the token is valid (a venue accepts at most its auth.maxTokenTTL, 24h by default)", func(s string) (err error) {
		*ttl, err = parseTTL(s)
		return err
	})
	if err := fs.Parse(args); err != nil || fs.NArg() > 0 {
		return fmt.Errorf("%v\nusage: venued token [--url base] [--seed hex] [--ttl 24h]", orArgs(err, fs.Args()))
	}
	if *base == "" {
		*base = getenv("VENUE_URL")
	}
	if *base == "" && getenv("VENUE_LISTEN") != "" {
		*base, _ = listenURL(listenAddr(getenv("VENUE_LISTEN"))) // the venue's own default URL, as it derives it
	}
	if *base == "" {
		*base = "http://127.0.0.1:8080"
	}
	aud, err := runtime.DIDWeb(*base)
	if err != nil {
		return err
	}
	if *ttl <= 0 || *ttl > 366*24*time.Hour {
		return fmt.Errorf("--ttl %s: want a duration from 1s to 8784h", *ttl)
	}
	seed := make([]byte, ed25519.SeedSize)
	if *seedHex == "" {
		rand.Read(seed)
	} else if seed, err = hex.DecodeString(*seedHex); err != nil || len(seed) != ed25519.SeedSize {
		return fmt.Errorf("--seed: want 64 hex digits (a 32-byte Ed25519 seed)")
	}
	key := ed25519.NewKeyFromSeed(seed)
	tok, err := auth.SelfIssued(key, aud, *ttl)
	if err != nil {
		return err
	}
	if *ttl > 24*time.Hour {
		// A shell comment, so that eval "$(venued token)" still works.
		if _, err := fmt.Fprintf(out, "# a venue accepts a token valid for %s only if its auth.maxTokenTTL is at least that (24h by default)\n", *ttl); err != nil {
			return err
		}
	}
	_, err = fmt.Fprintf(out, "DID=%s\nSEED=%s\nTOKEN=%s\n", didOf(key), hex.EncodeToString(seed), tok)
	return err
}

// listenAddr is the address a venue told to listen on addr derives its
// default URL from: the venue names the address it got, so a host name
// (localhost:8080) is resolved as net.Listen resolves it (127.0.0.1:8080).
// Without it the token named did:web:localhost%3A8080 and the venue, as
// did:web:127.0.0.1%3A8080, refused it.
func listenAddr(addr string) string {
	host, _, err := net.SplitHostPort(addr)
	if err != nil || host == "" || net.ParseIP(host) != nil {
		return addr
	}
	if a, err := net.ResolveTCPAddr("tcp", addr); err == nil && a.IP != nil {
		return a.String()
	}
	return addr
}

// parseTTL reads --ttl: a Go duration (90m, 24h) or whole days (7d), as
// jobRetention is written.
func parseTTL(s string) (time.Duration, error) {
	d, err := parseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("want a duration such as 24h, 90m or 7d")
	}
	return d, nil
}

func orArgs(err error, rest []string) any {
	if err != nil {
		return err
	}
	return fmt.Sprintf("unexpected arguments: %v", rest)
}

func didOf(key ed25519.PrivateKey) string { return venue.DIDKey(key.Public().(ed25519.PublicKey)) }
