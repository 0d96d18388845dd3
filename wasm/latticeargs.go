package wasm

import (
	"encoding/json"
	"strconv"

	"github.com/gridvenue/venue/internal/jsonscan"
)

// latticeArgs are the arguments of every lattice function; each uses some.
type latticeArgs struct {
	Path    string          `json:"path"`
	MaxSize int             `json:"maxSize"`
	Offset  int             `json:"offset"`
	Limit   int             `json:"limit"`
	Value   json.RawMessage `json:"value"`
	From    string          `json:"from"`
	To      string          `json:"to"`
}

// quickLattice decodes the arguments guests send most, a flat object of
// the members above, in one pass and without reflection: encoding/json
// took a third of a core:read's host call. It decodes only what it can
// decode exactly as encoding/json would into latticeArgs, and says false
// for anything else, valid or not (another member, a key in another case,
// a repeated key, an escape in a string, null, a number that is not a
// plain integer), which args.decode then decodes or words.
// FuzzQuickLattice holds the two to the same answers.
func quickLattice(b []byte) (latticeArgs, bool) {
	c := jsonscan.New(b)
	var a latticeArgs
	var seen [8]bool
	ok := c.Object(func(key string) bool {
		field, ok := -1, false
		switch key {
		case "path":
			field = 0
			a.Path, ok = c.PlainString()
		case "maxSize":
			field = 1
			a.MaxSize, ok = plainInt(c, b)
		case "offset":
			field = 2
			a.Offset, ok = plainInt(c, b)
		case "limit":
			field = 3
			a.Limit, ok = plainInt(c, b)
		case "value":
			field = 4
			start := c.Pos()
			ok = c.Value()
			// A copy, as encoding/json makes: b may be a view of the
			// guest's memory, which the guest can rewrite once the call
			// returns.
			a.Value = append(json.RawMessage(nil), b[start:c.Pos()]...)
		case "from":
			field = 5
			a.From, ok = c.PlainString()
		case "to":
			field = 6
			a.To, ok = c.PlainString()
		case "fn": // a request's own members carry its function's name too
			field = 7
			_, ok = c.PlainString()
		}
		if field < 0 || !ok || seen[field] {
			return false
		}
		seen[field] = true
		return true
	})
	return a, ok
}

// plainInt reads a number of digits with an optional minus sign that fits
// an int, as encoding/json decodes it into one.
func plainInt(c *jsonscan.Cursor, b []byte) (int, bool) {
	start := c.Pos()
	if !c.Number() {
		return 0, false
	}
	n, err := strconv.ParseInt(string(b[start:c.Pos()]), 10, 0)
	return int(n), err == nil
}
