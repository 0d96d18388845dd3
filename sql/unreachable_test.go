package sql

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"strings"
	"syscall"
	"testing"
	"time"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/sql/sqltest"
	"github.com/lib/pq"
)

// TestWrap_Unreachable: a store that cannot be reached is EUNAVAILABLE,
// worded for the caller without the store's own words, which stay in the
// chain; any other failure stays internal.
func TestWrap_Unreachable(t *testing.T) {
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"a refused dial", refused, venue.EUNAVAILABLE},
		{"a connection reset", fmt.Errorf("read: %w", syscall.ECONNRESET), venue.EUNAVAILABLE},
		{"a bad connection", driver.ErrBadConn, venue.EUNAVAILABLE},
		{"a connection closed before the server answered (a proxy whose server is down)", io.EOF, venue.EUNAVAILABLE},
		{"a connection exception", &pq.Error{Code: "08006"}, venue.EUNAVAILABLE},
		{"a server shutting down", &pq.Error{Code: "57P01"}, venue.EUNAVAILABLE},
		{"no connection left", &pq.Error{Code: "53300"}, venue.EUNAVAILABLE},
		{"a statement that failed", &pq.Error{Code: "42601"}, venue.EINTERNAL},
		{"anything else", errors.New("disk I/O error"), venue.EINTERNAL},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := wrap(t.Context(), tc.err, "list assets")
			if got := venue.ErrorCode(err); got != tc.want {
				t.Fatalf("code %s, want %s (%v)", got, tc.want, err)
			}
			if !errors.Is(err, tc.err) {
				t.Fatalf("the cause left the chain: %v", err)
			}
			if tc.want == venue.EUNAVAILABLE && venue.ErrorMessage(err) != "The venue's store cannot be reached; try again shortly" {
				t.Fatalf("message %q", venue.ErrorMessage(err))
			}
		})
	}
}

// TestOpen_WaitsForPostgres: a PostgreSQL that starts accepting
// connections within ConnectWait is waited for; one that does not fails
// after the wait, saying so.
func TestOpen_WaitsForPostgres(t *testing.T) {
	base := sqltest.PostgresDSN(t, true)
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	target := u.Host
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there yet
	u.Host = addr
	dsn := u.String()

	_, err = Open(context.Background(), dsn, Options{ConnectWait: 1500 * time.Millisecond})
	if err == nil || !strings.Contains(err.Error(), "after waiting 1.5s") {
		t.Fatalf("a server that never comes: %v", err)
	}
	go func() { // the server comes after a second: a forwarder to the real one
		time.Sleep(time.Second)
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			return
		}
		t.Cleanup(func() { ln.Close() })
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go forward(c, target)
		}
	}()
	start := time.Now()
	st, err := Open(context.Background(), dsn, Options{ConnectWait: 10 * time.Second})
	if err != nil {
		t.Fatalf("a server that comes within the wait: %v", err)
	}
	st.Close()
	if d := time.Since(start); d < 900*time.Millisecond {
		t.Fatalf("opened after %s, before the server came", d)
	}
}

// TestOpen_WaitsBehindAProxy: a proxy whose PostgreSQL is down accepts
// connections and closes them at once; that is a server not reachable
// yet, waited for, not a refusal that fails the start at once.
func TestOpen_WaitsBehindAProxy(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	dsn := "postgres://venue@" + ln.Addr().String() + "/venue?sslmode=disable"
	_, err = Open(context.Background(), dsn, Options{ConnectWait: 1500 * time.Millisecond})
	if err == nil || !strings.Contains(err.Error(), "after waiting 1.5s") {
		t.Fatalf("a proxy whose server is down: %v", err)
	}
}

func forward(c net.Conn, target string) {
	defer c.Close()
	s, err := net.Dial("tcp", target)
	if err != nil {
		return
	}
	defer s.Close()
	go io.Copy(s, c)
	io.Copy(c, s)
}

// TestReadonlyHint: SQLite's "readonly database" says what to make
// writable; other errors pass unchanged.
func TestReadonlyHint(t *testing.T) {
	ro := errors.New("open store: attempt to write a readonly database (1544)")
	if got := readonlyHint(ro, "/srv/venue"); !errors.Is(got, ro) || !strings.Contains(got.Error(), "its directory /srv/venue writable") {
		t.Fatalf("hint: %v", got)
	}
	other := errors.New("disk I/O error")
	if got := readonlyHint(other, "/srv/venue"); got != other {
		t.Fatalf("another error changed: %v", got)
	}
	if readonlyHint(nil, "/srv/venue") != nil {
		t.Fatal("no error became one")
	}
}
