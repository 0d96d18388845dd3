package runtime

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	venue "github.com/gridvenue/venue"
)

// metaSeedKey is where the store keeps the venue's Ed25519 seed when none
// is configured. metaPublicKey is where it keeps the public key of a
// configured seed, which stays out of the store: the seed opens every
// secret and signs the venue's tokens, and a key kept beside the
// ciphertexts would hand both to whoever reads a copy of the store (a
// backup, a dump of a shared PostgreSQL, a SQLite file copied away).
const (
	metaSeedKey   = "venue.ed25519.seed"
	metaPublicKey = "venue.ed25519.public"
)

// Identity is who the venue is: its key and its did:web DID.
type Identity struct {
	Key     ed25519.PrivateKey
	DID     string // did:web form, from the public base URL
	BaseURL string // public base URL without a trailing slash
}

// keyNotes are what loadIdentity has to tell the operator at start.
type keyNotes struct {
	dropped bool // the store kept a copy of the configured seed, now replaced by seedMovedOut
}

// loadIdentity returns the venue's key: the configured seed if there is one,
// else the seed kept in the store, else a new one stored for next time. Two
// nodes starting at once on one store end up with the same key. A
// configured seed is never stored: only its public key is, to tell at the
// next start whether the configured seed is still the one the store's
// secrets were sealed under, and a copy an earlier version kept is replaced (moveSeedOut).
// A store that knows a configured key but is started without a seed is
// refused (EINVALID), rather than given a new key that opens none of its
// secrets; so is a configured seed other than the key the store knows.
func loadIdentity(ctx context.Context, st MetaStore, seed []byte, baseURL string) (Identity, keyNotes, error) {
	var notes keyNotes
	did, err := DIDWeb(baseURL)
	if err != nil {
		return Identity{}, notes, err
	}
	if seed != nil {
		if notes.dropped, err = takeConfiguredSeed(ctx, st, seed); err != nil {
			return Identity{}, notes, err
		}
	} else {
		if _, err := st.Meta(ctx, metaPublicKey); err == nil {
			return Identity{}, notes, venue.Errorf(venue.EINVALID, "this store's secrets are sealed under a venue key configured outside it, which it does not keep: "+
				"give the same seed (VENUE_SEED or \"seed\") again")
		} else if venue.ErrorCode(err) != venue.ENOTFOUND {
			return Identity{}, notes, fmt.Errorf("load venue key: %w", err)
		}
		if err := refuseKeyless(ctx, st); err != nil {
			return Identity{}, notes, err
		}
		fresh := make([]byte, ed25519.SeedSize)
		rand.Read(fresh)
		if seed, err = st.PutMetaIfAbsent(ctx, metaSeedKey, fresh); err != nil {
			return Identity{}, notes, fmt.Errorf("load venue key: %w", err)
		}
	}
	if len(seed) != ed25519.SeedSize {
		return Identity{}, notes, venue.Errorf(venue.EINVALID, "venue key seed must be %d bytes, got %d", ed25519.SeedSize, len(seed))
	}
	return Identity{Key: ed25519.NewKeyFromSeed(seed), DID: did, BaseURL: strings.TrimRight(baseURL, "/")}, notes, nil
}

// takeConfiguredSeed checks a configured seed against the key the store
// knows, records its public key, and moves a copy of it the store kept out
// (dropped). A seed other than the store's key is refused before anything
// is written: it would open none of the store's secrets and sign what the
// other nodes do not trust, and once its public key was recorded, every
// later start without a seed was refused, the store's own key unused.
func takeConfiguredSeed(ctx context.Context, st MetaStore, seed []byte) (dropped bool, err error) {
	if len(seed) != ed25519.SeedSize {
		return false, venue.Errorf(venue.EINVALID, "venue key seed must be %d bytes, got %d", ed25519.SeedSize, len(seed))
	}
	kept, err := st.Meta(ctx, metaSeedKey)
	if err != nil && venue.ErrorCode(err) != venue.ENOTFOUND {
		return false, fmt.Errorf("load venue key: %w", err)
	}
	if len(kept) == ed25519.SeedSize && !bytes.Equal(kept, seed) {
		return false, venue.Errorf(venue.EINVALID, "the configured seed (VENUE_SEED or \"seed\") is not the venue key this store keeps, under which its secrets "+
			"are sealed and its tokens signed: start without a seed to use that key, or configure that key's seed (the 64 hex digits of the "+
			"store's meta row %s) to keep it out of the store from then on", metaSeedKey)
	}
	pub := ed25519.NewKeyFromSeed(seed).Public().(ed25519.PublicKey)
	// The public key goes in first: a start cut short between the two
	// steps must not leave a store with neither the seed nor the mark
	// that refuses a start without it (which would then make a new key
	// that opens none of its secrets).
	knownPub, err := st.PutMetaIfAbsent(ctx, metaPublicKey, pub)
	if err != nil {
		return false, fmt.Errorf("load venue key: %w", err)
	}
	if !bytes.Equal(knownPub, pub) {
		return false, venue.Errorf(venue.EINVALID, "the configured seed (VENUE_SEED or \"seed\") is not the one this store was started with before "+
			"(it records that seed's public key, never the seed), under which its secrets are sealed and its tokens signed: give the same seed again. "+
			"If that seed is lost, nothing opens the store's secrets: delete them and the meta row %s to start the store with a new key", metaPublicKey)
	}
	if bytes.Equal(kept, seed) {
		if err := moveSeedOut(ctx, st); err != nil {
			return false, fmt.Errorf("load venue key: %w", err)
		}
		return true, nil
	}
	return false, nil
}

// seedMovedOut replaces a configured seed an earlier version kept in the
// store. Not deleted, so that such a version, started on the store without
// the seed (as its README allowed once the store held it), stops on a seed
// of the wrong size instead of making a new key that opens none of the
// store's secrets and signs what the other nodes do not trust.
var seedMovedOut = []byte("moved out of the store: start with the configured seed")

// secretsHolder is the part of the store that tells whether it holds any
// sealed secret.
type secretsHolder interface {
	AnySecrets(ctx context.Context) (bool, error)
}

// refuseKeyless refuses to make a new key for a store that keeps none but
// holds sealed secrets: one an earlier version ran with a configured seed,
// which it kept no trace of (neither the seed nor its public key). A new
// key would open none of those secrets and, kept in the store, would bind
// it to a key that is not theirs.
func refuseKeyless(ctx context.Context, st MetaStore) error {
	if _, err := st.Meta(ctx, metaSeedKey); err == nil {
		return nil
	} else if venue.ErrorCode(err) != venue.ENOTFOUND {
		return fmt.Errorf("load venue key: %w", err)
	}
	h, ok := st.(secretsHolder)
	if !ok {
		return nil
	}
	held, err := h.AnySecrets(ctx)
	if err != nil {
		return fmt.Errorf("load venue key: %w", err)
	}
	if held {
		if _, err := st.Meta(ctx, metaSeedKey); err == nil {
			return nil // another node stored a key meanwhile, and sealed under it
		}
		return venue.Errorf(venue.EINVALID, "this store holds secrets but keeps no venue key: it was run with a configured seed, which an earlier version "+
			"did not record: give the same seed (VENUE_SEED or \"seed\") again (or, if it is lost, delete the store's secrets, which nothing can open)")
	}
	return nil
}

// moveSeedOut puts seedMovedOut in place of the kept seed. The public key
// is stored already, so a start cut short between the two steps leaves a
// store that still refuses a start without the seed.
func moveSeedOut(ctx context.Context, st MetaStore) error {
	if err := st.DeleteMeta(ctx, metaSeedKey); err != nil {
		return err
	}
	_, err := st.PutMetaIfAbsent(ctx, metaSeedKey, seedMovedOut)
	return err
}

// DIDWeb returns the did:web DID of a base URL: the host, with a port's colon
// percent-encoded, and any path segments joined by colons.
// Returns EINVALID if baseURL is not an absolute http(s) URL.
func DIDWeb(baseURL string) (string, error) {
	u, err := url.Parse(baseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", venue.Errorf(venue.EINVALID, "public base URL %q must be an absolute http(s) URL such as http://127.0.0.1:8080", baseURL)
	}
	// The URL is published (status, did.json) and prefixed to every link:
	// user info would publish a password, and a query or fragment would
	// break every link made from it.
	if u.User != nil || u.RawQuery != "" || u.ForceQuery || u.Fragment != "" || strings.Contains(baseURL, "#") {
		return "", venue.Errorf(venue.EINVALID, "public base URL %q may hold only a scheme, a host, a port and a path: no user info, query or fragment", u.Redacted())
	}
	if p := u.Port(); p != "" || strings.HasSuffix(u.Host, ":") {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 || p != strconv.Itoa(n) {
			return "", venue.Errorf(venue.EINVALID, "public base URL %q has port %q: want 1 to 65535, without leading zeros", baseURL, p)
		}
	}
	// A DID names the path by its segments: an escaped '/', a dot segment
	// (escaped or not) or an empty one would name another place than the
	// venue's.
	escaped := strings.Split(strings.TrimSuffix(u.EscapedPath(), "/"), "/")
	decoded := strings.Split(strings.TrimSuffix(u.Path, "/"), "/")
	for i, seg := range escaped {
		bad := strings.Contains(strings.ToUpper(seg), "%2F") || i > 0 && seg == ""
		if i < len(decoded) {
			bad = bad || venue.HasDotSegment(decoded[i])
		}
		if bad {
			return "", venue.Errorf(venue.EINVALID, "public base URL %q has a path segment %q: give the path as written, without empty, '.' or '..' segments or an escaped '/'", baseURL, seg)
		}
	}
	// did:web's characters: a port's colon and an IPv6 host's brackets
	// are percent-encoded.
	host := strings.NewReplacer(":", "%3A", "[", "%5B", "]", "%5D").Replace(u.Host)
	did := "did:web:" + host
	for _, seg := range strings.Split(strings.Trim(u.Path, "/"), "/") {
		if seg != "" {
			did += ":" + strings.ReplaceAll(url.PathEscape(seg), ":", "%3A") // a colon would split the segment
		}
	}
	return did, nil
}

// UserDID returns the did:web DID of the venue's user id, resolvable at
// <base>/u/<id>/did.json.
func (id Identity) UserDID(user string) string { return id.DID + ":u:" + user }

// PublicDID is the shared identity of anonymous callers.
func (id Identity) PublicDID() string { return id.UserDID("public") }
