package rest

import (
	"encoding/json"
	"strconv"

	"github.com/gridvenue/venue/internal/jsonscan"
)

// quickInvoke decodes the invoke bodies clients send, plain ones, in one
// pass and without reflection: encoding/json's Decoder scans a body twice
// and was a twentieth of an echo invoke's cost. It decodes only what it
// can decode exactly as decodeInvoke's encoding/json path would, and says
// false for everything else, valid or not (escapes in a field's string,
// keys in another case, a repeated key, deep nesting, any error), which
// the slow path then decodes or words. FuzzQuickInvoke holds the two to
// the same answers.
func quickInvoke(b []byte) (invocation, bool) {
	c := jsonscan.New(b)
	var inv invocation
	var seen [5]bool
	ok := c.Object(func(key string) bool {
		field, ok := -1, false
		switch key {
		case "operation":
			field = 0
			inv.Operation, ok = c.PlainString()
			ok = ok && inv.Operation != ""
		case "input":
			field = 1
			start := c.Pos()
			ok = c.Value()
			inv.Input = json.RawMessage(b[start:c.Pos()])
		case "wait":
			field = 2
			inv.Wait, ok = wait(c, b)
		case "ucans":
			field = 3
			inv.UCANs, ok = plainStrings(c)
		case "private":
			field = 4
			_, ok = c.Bool()
		}
		if field < 0 || !ok || seen[field] {
			return false
		}
		seen[field] = true
		return true
	})
	if !ok || !seen[0] { // an empty body misses operation: the slow path says so
		return invocation{}, false
	}
	return inv, true
}

// wait reads wait, from text b, as encoding/json decodes it into an
// interface: a bool, a float64 or a string (other kinds are left to the
// slow path).
func wait(c *jsonscan.Cursor, b []byte) (any, bool) {
	ch, _ := c.Peek()
	switch {
	case ch == 't' || ch == 'f':
		return c.Bool()
	case ch == '"':
		return c.PlainString()
	case ch == '-' || (ch >= '0' && ch <= '9'):
		start := c.Pos()
		if !c.Number() {
			return nil, false
		}
		f, err := strconv.ParseFloat(string(b[start:c.Pos()]), 64)
		return f, err == nil
	}
	return nil, false
}

// plainStrings reads an array of plain strings.
func plainStrings(c *jsonscan.Cursor) ([]string, bool) {
	empty, ok := c.Open('[', ']')
	if !ok {
		return nil, false
	}
	out := []string{}
	for more := !empty; more; {
		c.Space()
		str, ok := c.PlainString()
		if !ok {
			return nil, false
		}
		out = append(out, str)
		if more, ok = c.Next(']'); !ok {
			return nil, false
		}
	}
	return out, true
}
