package jsonscan

// Compacted reports whether b is one JSON value that json.Compact would
// give back unchanged: valid as encoding/json judges it, with no
// whitespace outside its strings and none around it. Most JSON the venue
// handles (inputs from its own clients, outputs its operations encode) is
// already compact, and a check that it is costs a fraction of rewriting it.
// A false is no verdict: the text may be invalid, spaced or nested deeper
// than MaxDepth, and the caller compacts it with encoding/json.
func Compacted(b []byte) bool {
	c := Cursor{b: b}
	return c.Value() && c.AtEnd() && !c.spaced
}
