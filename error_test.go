package venue_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	venue "github.com/gridvenue/venue"
)

func TestErrorCode(t *testing.T) {
	notFound := venue.Errorf(venue.ENOTFOUND, "Asset not found: %s", "0xabc")
	for _, tc := range []struct {
		name     string
		err      error
		wantCode string
		wantMsg  string
	}{
		{"nil has no code", nil, "", ""},
		{"coded error", notFound, venue.ENOTFOUND, "Asset not found: 0xabc"},
		{"wrapped once", fmt.Errorf("load asset: %w", notFound), venue.ENOTFOUND, "Asset not found: 0xabc"},
		{"wrapped twice", fmt.Errorf("invoke: %w", fmt.Errorf("load asset: %w", notFound)), venue.ENOTFOUND, "Asset not found: 0xabc"},
		{"joined", errors.Join(errors.New("other"), venue.Errorf(venue.ECONFLICT, "Job is terminal")), venue.ECONFLICT, "Job is terminal"},
		{"first coded error in the chain wins", errors.Join(fmt.Errorf("wait: %w", venue.Errorf(venue.ETIMEOUT, "Timed out")), notFound), venue.ETIMEOUT, "Timed out"},
		{"plain error is internal", errors.New("pq: password authentication failed for user admin"), venue.EINTERNAL, "Internal error"},
		{"wrapped plain error is internal", fmt.Errorf("store: %w", errors.New("disk full")), venue.EINTERNAL, "Internal error"},
		{"empty code is kept", &venue.Error{Message: "m"}, "", "m"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := venue.ErrorCode(tc.err); got != tc.wantCode {
				t.Errorf("ErrorCode = %q, want %q", got, tc.wantCode)
			}
			if got := venue.ErrorMessage(tc.err); got != tc.wantMsg {
				t.Errorf("ErrorMessage = %q, want %q", got, tc.wantMsg)
			}
		})
	}
}

func TestErrorf(t *testing.T) {
	err := venue.Errorf(venue.EINVALID, "bad %s: %d", "thing", 42)
	if err.Code != venue.EINVALID || err.Message != "bad thing: 42" || err.Error() != "bad thing: 42" {
		t.Errorf("Errorf = %+v (Error() %q)", err, err.Error())
	}
	var target *venue.Error
	if !errors.As(fmt.Errorf("ctx: %w", err), &target) || target != err {
		t.Errorf("errors.As did not find the *Error through %%w")
	}
}

func TestErrorCodes_Distinct(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range []string{venue.EINVALID, venue.EUNAUTHORIZED, venue.EFORBIDDEN, venue.ENOTFOUND,
		venue.ECONFLICT, venue.ETOOLARGE, venue.EUNAVAILABLE, venue.ETIMEOUT, venue.EINTERNAL} {
		if c == "" || seen[c] {
			t.Errorf("code %q is empty or repeated", c)
		}
		seen[c] = true
	}
}

// TestErrorMessages_ValidUTF8: messages echo untrusted input clipped to 100
// bytes. clip must cut at a character boundary, so a multi-byte character
// that straddles byte 100 leaves no broken UTF-8 in messages that use %s
// (ParseOpRef, ParseAssetID, ParseDIDKey).
func TestErrorMessages_ValidUTF8(t *testing.T) {
	straddle := strings.Repeat("a", 99) + "é" + strings.Repeat("b", 20) // 'é' spans bytes 99-100
	for _, tc := range []struct {
		name string
		err  func() error
	}{
		{"ParseOpRef", func() error { _, err := venue.ParseOpRef(straddle); return err }},
		{"ParseAssetID", func() error { _, err := venue.ParseAssetID(straddle); return err }},
		{"ParseDIDKey", func() error { _, err := venue.ParseDIDKey("did:key:z" + straddle[9:]); return err }},
		{"ParseJobID", func() error { _, err := venue.ParseJobID(straddle); return err }},
		{"ParsePath", func() error { _, err := venue.ParsePath("x/" + straddle[2:]); return err }},
		{"ParseSecretRef", func() error { _, err := venue.ParseSecretRef(straddle); return err }},
		{"CheckSecretName", func() error { return venue.CheckSecretName(straddle) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.err()
			if err == nil {
				t.Fatal("want an error")
			}
			if msg := err.Error(); !utf8.ValidString(msg) {
				t.Errorf("message is not valid UTF-8: %q", msg)
			}
		})
	}
}
