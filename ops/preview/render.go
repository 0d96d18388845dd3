package preview

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/gridvenue/venue/ops/internal/jsonv"
)

// Renderer writes the annotated JSON5-style preview core:inspect returns:
// the value's own syntax (so its types show), object keys unquoted where
// JSON5 allows, and each cut marked with '…' and a /* comment */ counting
// what was left out:
//
//	{name: "Ada", tags: ["x", … /* 9 more */], bio: "Lorem ipsu…" /* 2345 chars */, address: {… /* 4 keys */}, … /* 3 more */}
//
// Budgets are soft. A value that fits is shown whole. Otherwise an object
// divides its budget fairly among its keys, and an array gives its first
// element all it can and shows further elements only whole; rendering stops
// at the first member that does not fit. A value that cannot fit at all is
// still summarised ({…}, […], "…"), so a preview may exceed a very small
// budget by a few bytes.
//
// An object may render its members twice (see object), so rendering a
// deep value could take time exponential in its depth, and measuring each
// level's whole form again, time quadratic in it. The built-in module has
// no termination checks (docs/RATIONALE.md), so a Renderer counts its work
// in steps and, once they are spent, summarises whatever it has not yet
// rendered: a preview always ends, in time linear in the value's size and
// at most MaxSteps more.
type Renderer struct {
	compact bool // no spaces after ':' and ','
	steps   *int // work left, shared by every path of one inspect
}

// MaxSteps bounds the work of one inspect: a step is a member or element
// looked at, or 64 bytes of a value measured. In the guest a step costs
// well under a microsecond, so one inspect's rendering stays under about a
// tenth of a second.
const MaxSteps = 200_000

// NewRenderer returns a renderer, compact (no spaces after ':' and ',') or
// not, that takes its steps from *steps; renderers given the same counter
// share one allowance, as the paths of one inspect do. A nil steps means
// an allowance of MaxSteps of its own.
func NewRenderer(compact bool, steps *int) Renderer {
	if steps == nil {
		steps = new(int)
		*steps = MaxSteps
	}
	return Renderer{compact: compact, steps: steps}
}

// Value renders v, a value of the kinds this package describes, in about
// budget bytes.
func (r Renderer) Value(v any, budget int) string { return r.value(v, budget) }

// spend takes n steps and reports whether any were left to take.
func (r Renderer) spend(n int) bool {
	if *r.steps <= 0 {
		return false
	}
	*r.steps -= n
	return true
}

func (r Renderer) colon() string { return r.pick(": ", ":") }
func (r Renderer) comma() string { return r.pick(", ", ",") }

func (r Renderer) pick(spaced, compact string) string {
	if r.compact {
		return compact
	}
	return spaced
}

// note is an annotation: " /* text */".
func (r Renderer) note(text string) string {
	return r.pick(" /* "+text+" */", "/*"+text+"*/")
}

// summaryLen is the length of the shortest summary, {…} or "…".
var summaryLen = len(`"…"`)

// value renders v in about budget bytes.
func (r Renderer) value(v any, budget int) string {
	budget = max(budget, 0)
	if !r.spend(1) {
		return r.summary(v)
	}
	if s, ok := r.whole(v, budget); ok {
		return s
	}
	if budget < summaryLen {
		return r.summary(v) // and not look inside a value nothing of which can show
	}
	switch v := v.(type) {
	case string:
		return r.str(v, budget)
	case []any:
		return r.array(v, budget)
	case *jsonv.Object:
		return r.object(v, budget)
	}
	return r.number(string(jsonv.Append(nil, v)), budget)
}

// overflow is how far past its budget the one thing that cannot be cut
// short as a string or a container can (a lone member's key, a number)
// may still show whole; past it, it is cut as well, with a note.
const overflow = 32

// number shows a number (or literal) whole when it nearly fits, else its
// first digits and how many there are.
func (r Renderer) number(s string, budget int) string {
	if len(s) <= budget+overflow {
		return s
	}
	note := r.note(fmt.Sprintf("%d digits", len(s)))
	return prefix(s, max(1, budget-len(note)-len("…"))) + "…" + note
}

// summary is v in the fewest bytes, whatever the budget: a container or a
// long string as {…}, […] or "…", anything else whole.
func (r Renderer) summary(v any) string {
	switch v := v.(type) {
	case []any:
		if len(v) > 0 {
			return "[…]"
		}
	case *jsonv.Object:
		if len(v.Keys()) > 0 {
			return "{…}"
		}
	case string:
		if len(v) > summaryLen-2 {
			return `"…"` // shorter strings quote to summaryLen bytes at least
		}
	}
	return string(jsonv.Append(nil, v))
}

// whole renders all of v if that takes at most limit bytes. It gives up
// as soon as it passes the limit, so trying costs at most limit bytes of
// work however large v is.
func (r Renderer) whole(v any, limit int) (string, bool) {
	b := r.appendWhole(make([]byte, 0, max(0, min(limit, 1024))), v, limit)
	r.spend(len(b) / 64)
	return string(b), len(b) <= limit
}

func (r Renderer) appendWhole(b []byte, v any, limit int) []byte {
	switch v := v.(type) {
	case []any:
		b = append(b, '[')
		for i, e := range v {
			if len(b) > limit {
				return b
			}
			if i > 0 {
				b = append(b, r.comma()...)
			}
			b = r.appendWhole(b, e, limit)
		}
		return append(b, ']')
	case *jsonv.Object:
		b = append(b, '{')
		for i, k := range v.Keys() {
			if len(b) > limit {
				return b
			}
			if i > 0 {
				b = append(b, r.comma()...)
			}
			e, _ := v.Get(k)
			b = r.appendWhole(append(append(b, key(k)...), r.colon()...), e, limit)
		}
		return append(b, '}')
	case string:
		if len(b)+len(v) > limit {
			// Over the limit, which is all the caller needs to know: copy
			// no more of a long string than it takes to pass it.
			return append(b, v[:min(len(v), max(1, limit-len(b)+1))]...)
		}
	}
	return jsonv.Append(b, v)
}

// str quotes s, cutting it to fit and noting its full length.
func (r Renderer) str(s string, budget int) string {
	q := string(jsonv.AppendString(nil, s))
	if len(q) <= budget || len(q) <= len(`"…"`) {
		return q
	}
	note := r.note(fmt.Sprintf("%d chars", utf8.RuneCountInString(s)))
	if keep := budget - len(note) - len(`"…"`); keep > 0 {
		return string(jsonv.AppendString(nil, prefix(s, keep)+"…")) + note
	}
	return `"…"`
}

// prefix returns at most n bytes of s, cut at a rune boundary.
func prefix(s string, n int) string {
	if n <= 0 {
		return ""
	}
	if n >= len(s) {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// array shows its first element as fully as the budget allows and the
// next ones only whole: one element in detail says more about a list than
// many summaries do.
func (r Renderer) array(a []any, budget int) string {
	return r.members("[", "]", len(a), budget, true, func(i, avail int) string {
		if i == 0 {
			return r.value(a[i], avail)
		}
		s, ok := r.whole(a[i], avail)
		if !ok {
			return ""
		}
		return s
	})
}

// object gives every key a fair share of the budget (max-min fair: keys
// whose values are small get all they need, the rest split what is left),
// since its keys are its shape. It first tries to show every key, then
// keeps room to note the keys it has to leave out.
func (r Renderer) object(o *jsonv.Object, budget int) string {
	keys := o.Keys()
	want := make([]int, max(0, min(len(keys), budget/minMember+1)))
	r.spend(len(want))
	labels := make([]string, len(want))
	label := func(i int) string {
		if i < len(labels) {
			return labels[i]
		}
		return key(keys[i]) + r.colon()
	}
	for i := range want {
		labels[i] = key(keys[i]) + r.colon()
		v, _ := o.Get(keys[i])
		s, _ := r.whole(v, budget)
		want[i] = len(labels[i]) + len(s)
	}
	overhead := len("{}") + (len(want)-1)*len(r.comma())
	for _, cut := range []bool{false, true} {
		if cut {
			overhead += len(r.cut(len(keys)))
		}
		shares := shareList(FairShares(want, budget-overhead))
		s := r.members("{", "}", len(keys), budget, cut, func(i, avail int) string {
			share := 0
			if i < len(shares) {
				// What earlier members left unused goes to this one.
				later := shares.from(i+1) + (len(shares)-1-i)*len(r.comma())
				share = max(shares[i], avail-later)
			}
			v, _ := o.Get(keys[i])
			return label(i) + r.value(v, min(share, avail)-len(label(i)))
		})
		if s != "" {
			return s
		}
	}
	return "{…}" // not reached: members with cut always renders
}

// minMember is the fewest bytes a shown member takes ("k: 1, "); members
// past budget/minMember cannot be shown and are not measured.
const minMember = 4

// shareList is a division of a budget among the first members of a value.
type shareList []int

// from returns the sum of the shares of members i and later.
func (s shareList) from(i int) int {
	sum := 0
	for _, n := range s[i:] {
		sum += n
	}
	return sum
}

// FairShares divides total among members wanting want[i] bytes, max-min
// fairly: in order of want, each member gets what it wants or an equal
// part of what is left, whichever is less. It is how an object divides its
// budget among its keys.
func FairShares(want []int, total int) []int {
	order := make([]int, len(want))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return want[a] - want[b] })
	shares := make([]int, len(want))
	left := max(total, 0)
	for n, i := range order {
		shares[i] = min(want[i], left/(len(want)-n))
		left -= shares[i]
	}
	return shares
}

// members renders n members between open and close; member(i, avail)
// renders member i in at most about avail bytes, what is left once the
// members before it, a separator and (if cut) room to note a cut are paid
// for, or returns "" to stop. With cut it stops at the first member that
// does not fit and notes how many were left out; without, a member that
// does not fit makes the whole rendering fail with "".
func (r Renderer) members(open, close string, n, budget int, cut bool, member func(i, avail int) string) string {
	if n == 0 {
		return open + close
	}
	var b strings.Builder
	b.WriteString(open)
	for i := range n {
		rest := n - i
		reserve := len(close)
		if cut && rest > 1 {
			reserve += len(r.comma()) + len(r.cut(rest-1))
		}
		sep := ""
		if i > 0 {
			sep = r.comma()
		}
		avail := budget - b.Len() - reserve - len(sep)
		if !r.spend(1) && i > 0 && cut {
			return r.cutAt(&b, i, rest, open, close, budget)
		}
		piece := member(i, avail)
		switch {
		case (piece == "" || len(piece) > avail) && !cut:
			return ""
		case piece == "" || len(piece) > avail && (i > 0 || rest > 1 || len(piece) > avail+overflow):
			return r.cutAt(&b, i, rest, open, close, budget)
		}
		b.WriteString(sep + piece)
	}
	return b.String() + close
}

// cutAt ends a rendering after i members, noting the rest left out; with
// no member shown it summarises the whole value.
func (r Renderer) cutAt(b *strings.Builder, i, rest int, open, close string, budget int) string {
	if i == 0 {
		unit := map[string]string{"{": "key", "[": "item"}[open]
		full := open + "…" + r.note(counted(rest, unit)) + close
		if len(full) <= budget {
			return full
		}
		return open + "…" + close
	}
	return b.String() + r.comma() + r.cut(rest) + close
}

// cut is the marker for rest members left out: "… /* 8 more */".
func (r Renderer) cut(rest int) string {
	return "…" + r.note(fmt.Sprintf("%d more", rest))
}

// key writes an object key as JSON5 does: bare when it is an identifier.
func key(k string) string {
	if isIdent(k) {
		return k
	}
	return string(jsonv.AppendString(nil, k))
}

func isIdent(k string) bool {
	if k == "" {
		return false
	}
	for i, c := range k {
		letter := c == '_' || c == '$' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
		if !letter && (i == 0 || c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// counted is n of unit, in the plural unless n is 1.
func counted(n int, unit string) string {
	if n == 1 {
		return "1 " + unit
	}
	return fmt.Sprintf("%d %ss", n, unit)
}
