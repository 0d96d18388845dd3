package runtime

import (
	"unicode/utf8"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/internal/jsonscan"
)

// misread words what in JSON text v readers would take differently, and
// what to send instead, or returns "" when nothing is: bytes that are not
// UTF-8 (a door that decodes into raw JSON, as the MCP SDK does, or a
// guest's host call hands them on as given), a number past a double's
// range (1e999), or half of a UTF-16 surrogate pair escaped without the
// other ("\ud800").
// JSON's grammar allows both and the venue would keep them as written, but
// I-JSON (RFC 7493) refuses them, as it refuses a name given twice: every
// reader that decodes numbers as doubles (Go's encoding/json among them)
// refuses the whole text for the first, so one such input would make its
// owner's job list unreadable to a client generated in Go; and readers
// decode the second as U+FFFD or keep it, so a schema check, an operation
// and a client could each see another string.
func misread(v []byte) (what, fix string) {
	if !utf8.Valid(v) {
		return "bytes that are not UTF-8 text, as JSON must be, which JSON readers refuse or replace",
			"send its strings encoded as UTF-8"
	}
	if n := jsonscan.Huge(v); n != "" {
		return "the number " + clipRef(n) + ", past the largest a double holds (about 1.8e308), which many JSON readers refuse",
			"send a number a double holds, or the number as a string"
	}
	if jsonscan.LoneSurrogate(v) {
		return "half of a UTF-16 surrogate pair escaped without the other half, which JSON readers decode differently",
			"send both halves, or the character itself"
	}
	return "", ""
}

// refuseMisread answers EINVALID for what a caller sends when readers
// would take it differently (see misread).
func refuseMisread(what string, v []byte) error {
	if msg, fix := misread(v); msg != "" {
		return venue.Errorf(venue.EINVALID, "%s has %s: %s", what, msg, fix)
	}
	return nil
}
