package jsonscan

// Cursor walks a JSON text. Every method that reads reports whether what
// it expected was there; after a false the cursor's position is
// unspecified, and the caller gives up.
type Cursor struct {
	b      []byte
	i      int
	spaced bool // Space has skipped whitespace (see Compacted)
}

// New returns a cursor at the start of b.
func New(b []byte) *Cursor { return &Cursor{b: b} }

// MaxDepth bounds the nesting Value checks by recursion; deeper values are
// declined, and left to encoding/json, whose own bound is far higher.
const MaxDepth = 64

// Pos is the cursor's offset in the text.
func (c *Cursor) Pos() int { return c.i }

// AtEnd reports whether the whole text has been read.
func (c *Cursor) AtEnd() bool { return c.i == len(c.b) }

// Peek returns the next byte, if there is one.
func (c *Cursor) Peek() (byte, bool) {
	if c.i < len(c.b) {
		return c.b[c.i], true
	}
	return 0, false
}

// Space skips JSON whitespace.
func (c *Cursor) Space() {
	start := c.i
	for c.i < len(c.b) {
		switch c.b[c.i] {
		case ' ', '\t', '\n', '\r':
			c.i++
			continue
		}
		break
	}
	c.spaced = c.spaced || c.i != start
}

// Eat reads ch, if it comes next.
func (c *Cursor) Eat(ch byte) bool {
	if c.i < len(c.b) && c.b[c.i] == ch {
		c.i++
		return true
	}
	return false
}

// Literal reads word, if it comes next.
func (c *Cursor) Literal(word string) bool {
	if len(c.b)-c.i >= len(word) && string(c.b[c.i:c.i+len(word)]) == word {
		c.i += len(word)
		return true
	}
	return false
}

// PlainString reads a string of printable ASCII without escapes, which
// decodes to exactly its bytes. Any other string is declined: encoding/json
// unescapes escapes and replaces invalid UTF-8.
func (c *Cursor) PlainString() (string, bool) {
	if !c.Eat('"') {
		return "", false
	}
	start := c.i
	for ; c.i < len(c.b); c.i++ {
		switch ch := c.b[c.i]; {
		case ch == '"':
			str := string(c.b[start:c.i])
			c.i++
			return str, true
		case ch < 0x20 || ch == '\\' || ch >= 0x80:
			return "", false
		}
	}
	return "", false
}

// Bool reads true or false.
func (c *Cursor) Bool() (bool, bool) {
	switch {
	case c.Literal("true"):
		return true, true
	case c.Literal("false"):
		return false, true
	}
	return false, false
}

// Value checks one JSON value of any kind, nested at most MaxDepth deep,
// and moves past it.
func (c *Cursor) Value() bool { return c.value(0) }

func (c *Cursor) value(depth int) bool {
	ch, ok := c.Peek()
	if !ok || depth > MaxDepth {
		return false
	}
	switch {
	case ch == '{':
		return c.object(depth + 1)
	case ch == '[':
		return c.array(depth + 1)
	case ch == '"':
		return c.anyString()
	case ch == '-' || (ch >= '0' && ch <= '9'):
		return c.Number()
	case ch == 't':
		return c.Literal("true")
	case ch == 'f':
		return c.Literal("false")
	case ch == 'n':
		return c.Literal("null")
	}
	return false
}

// Next reads what follows a member of an object or array closed by
// closing: a comma (more is true) or closing itself (more is false), each
// after optional whitespace. ok is false for anything else.
func (c *Cursor) Next(closing byte) (more, ok bool) {
	c.Space()
	switch {
	case c.Eat(','):
		return true, true
	case c.Eat(closing):
		return false, true
	}
	return false, false
}

// Open reads the opening of an object or array and reports whether it is
// empty (its closing follows at once, and was read too).
func (c *Cursor) Open(opening, closing byte) (empty, ok bool) {
	if !c.Eat(opening) {
		return false, false
	}
	c.Space()
	return c.Eat(closing), true
}

// Object reads a whole text that is one object, with optional whitespace
// around it, calling member for each member once its key (a plain string,
// see Key) and colon are read; member must read the value. It reports
// false if member does, or if the text is anything else.
func (c *Cursor) Object(member func(key string) bool) bool {
	c.Space()
	empty, ok := c.Open('{', '}')
	if !ok {
		return false
	}
	for more := !empty; more; {
		key, ok := c.Key()
		if !ok || !member(key) {
			return false
		}
		if more, ok = c.Next('}'); !ok {
			return false
		}
	}
	c.Space()
	return c.AtEnd()
}

func (c *Cursor) object(depth int) bool {
	empty, _ := c.Open('{', '}')
	for more := !empty; more; {
		c.Space()
		if !c.anyString() {
			return false
		}
		c.Space()
		if !c.Eat(':') {
			return false
		}
		c.Space()
		if !c.value(depth) {
			return false
		}
		var ok bool
		if more, ok = c.Next('}'); !ok {
			return false
		}
	}
	return true
}

func (c *Cursor) array(depth int) bool {
	empty, _ := c.Open('[', ']')
	for more := !empty; more; {
		c.Space()
		if !c.value(depth) {
			return false
		}
		var ok bool
		if more, ok = c.Next(']'); !ok {
			return false
		}
	}
	return true
}

// anyString checks a string as encoding/json's scanner does: any byte from
// 0x20 up but for the quote and the backslash, which starts one of JSON's
// escapes.
func (c *Cursor) anyString() bool {
	if !c.Eat('"') {
		return false
	}
	for c.i < len(c.b) {
		ch := c.b[c.i]
		c.i++
		switch {
		case ch == '"':
			return true
		case ch < 0x20:
			return false
		case ch == '\\':
			if !c.escape() {
				return false
			}
		}
	}
	return false
}

// escape checks what follows a backslash in a string.
func (c *Cursor) escape() bool {
	e, ok := c.Peek()
	if !ok {
		return false
	}
	c.i++
	switch e {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return true
	case 'u':
		for range 4 {
			if h, ok := c.Peek(); !ok || !isHex(h) {
				return false
			}
			c.i++
		}
		return true
	}
	return false
}

func isHex(ch byte) bool {
	return (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f') || (ch >= 'A' && ch <= 'F')
}

// Number checks a number by JSON's grammar: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
func (c *Cursor) Number() bool {
	c.Eat('-')
	switch {
	case c.Eat('0'):
	case c.digits():
	default:
		return false
	}
	if c.Eat('.') && !c.digits() {
		return false
	}
	if c.Eat('e') || c.Eat('E') {
		if !c.Eat('+') {
			c.Eat('-')
		}
		if !c.digits() {
			return false
		}
	}
	return true
}

// digits reads one digit or more.
func (c *Cursor) digits() bool {
	start := c.i
	for c.i < len(c.b) && c.b[c.i] >= '0' && c.b[c.i] <= '9' {
		c.i++
	}
	return c.i > start
}

// Key reads an object member's key, a plain string (see PlainString), and
// the colon after it, with the whitespace around both.
func (c *Cursor) Key() (string, bool) {
	c.Space()
	key, ok := c.PlainString()
	if !ok {
		return "", false
	}
	c.Space()
	ok = c.Eat(':')
	c.Space()
	return key, ok
}
