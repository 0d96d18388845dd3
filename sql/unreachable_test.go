package sql

import (
	"errors"
	"fmt"
	"net"
	"syscall"
	"testing"

	"database/sql/driver"

	venue "github.com/gridvenue/venue"
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
		{"a connection exception", &pq.Error{Code: "08006"}, venue.EUNAVAILABLE},
		{"a server shutting down", &pq.Error{Code: "57P01"}, venue.EUNAVAILABLE},
		{"no connection left", &pq.Error{Code: "53300"}, venue.EUNAVAILABLE},
		{"a statement that failed", &pq.Error{Code: "42601"}, venue.EINTERNAL},
		{"anything else", errors.New("disk I/O error"), venue.EINTERNAL},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := wrap(tc.err, "list assets")
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
