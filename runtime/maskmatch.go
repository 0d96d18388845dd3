package runtime

import (
	"slices"
	"strings"
	"unicode/utf8"
)

// maskValue is a secret the masker looks for.
type maskValue struct {
	v string
	// anchor is v's longest run of ASCII letters and digits, which every
	// encoder writes as they are: every form of v holds it, so a text
	// without it holds none, and a text with it is searched only around
	// it. A value without letters or digits has none ("").
	anchor string
	at     int // where anchor starts in v
	// blind is set when the forms of v's characters outgrew the masker's
	// budget: a text that may hold v (it holds the anchor, or see minLen)
	// is then blanked whole, which hides every form at a cost bounded by
	// the text's size.
	blind bool
	// minLen and first narrow the texts a blind value without an anchor
	// blanks (else all of them): each of its characters takes at least a
	// byte in every form, and every form begins with a form of its first
	// character (first, worked out alone). A text shorter, or holding none
	// of first, cannot hold it, so a JSON member name or number stays.
	minLen int
	first  []string
}

func newMaskValue(v string) *maskValue {
	mv := &maskValue{v: v}
	for i := 0; i < len(v); {
		j := i
		for j < len(v) && isAlnum(v[j]) {
			j++
		}
		if j-i > len(mv.anchor) {
			mv.anchor, mv.at = v[i:j], i
		}
		i = j + 1
	}
	return mv
}

func isAlnum(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// A job's masker may compare a form with a text matchPerByte times for
// each byte of the texts it masks, and matchFloor times more over the
// whole job, which the texts draw on as they need: enough for any text that
// echoes a secret a few hundred times, and bounded by the size of what the
// job reads (300 short headers share one floor, rather than each having
// its own). A search that runs out blanks the text whole.
const (
	matchPerByte = 32
	matchFloor   = 1 << 22
)

// matchBudget is how many comparisons masking a text of n bytes may take:
// its own share and what is left of the job's floor.
func (m *masker) matchBudget(n int) int { return matchPerByte*n + matchFloor - m.floorSpent }

// spend charges the floor with what masking a text of n bytes, begun with
// budget start, took beyond its own share.
func (m *masker) spend(n, start, left int) {
	if over := start - left - matchPerByte*n; over > 0 {
		m.floorSpent = min(matchFloor, m.floorSpent+over)
	}
}

// distinctPos sorts ps, the positions a search reached by one step, and
// drops repeats: a value of backslashes, whose forms are \, \\\\ and
// more, may be read in thousands of ways, and a check for each against the
// others would cost more than the budget counts.
func distinctPos(ps []int, budget *int) []int {
	if len(ps) < 2 {
		return ps
	}
	*budget -= len(ps)
	slices.Sort(ps)
	return slices.Compact(ps)
}

// hide returns s with every form of the values in vals replaced by Hidden;
// all of s is Hidden if one of them is blind and may be in s, or if the
// search ran out of budget.
func (m *masker) hide(s string, vals []*maskValue, budget *int) string {
	var spans [][2]int
	for _, mv := range vals {
		var ok bool
		if spans, ok = m.find(s, mv, spans, budget); !ok {
			return Hidden
		}
	}
	if len(spans) == 0 {
		return s
	}
	slices.SortFunc(spans, func(a, b [2]int) int { return a[0] - b[0] })
	var b strings.Builder
	last := 0
	for i := 0; i < len(spans); {
		start, end := spans[i][0], spans[i][1]
		for i++; i < len(spans) && spans[i][0] < end; i++ {
			end = max(end, spans[i][1])
		}
		b.WriteString(s[last:start])
		b.WriteString(Hidden)
		last = end
	}
	b.WriteString(s[last:])
	return b.String()
}

// find appends to spans where s holds a form of mv, each as [start, end).
// It reports false if mv is blind and s may hold it, or if the budget ran
// out.
func (m *masker) find(s string, mv *maskValue, spans [][2]int, budget *int) ([][2]int, bool) {
	if mv.anchor == "" {
		if mv.blind {
			return spans, !mv.mayHold(s, budget)
		}
		_, n := utf8.DecodeRuneInString(mv.v)
		first := m.forms(mv.v[:n])
		for q := range len(s) {
			*budget -= len(first)
			if !slices.ContainsFunc(first, func(f string) bool { return strings.HasPrefix(s[q:], f) }) {
				continue
			}
			if end := m.forward(s, q, mv.v, budget); end >= 0 {
				spans = append(spans, [2]int{q, end})
			}
			if *budget < 0 {
				return spans, false
			}
		}
		return spans, true
	}
	for from := 0; ; {
		i := strings.Index(s[from:], mv.anchor)
		if i < 0 {
			return spans, true
		}
		if mv.blind {
			return spans, false
		}
		at := from + i
		after := at + len(mv.anchor)
		if start := m.backward(s, at, mv.v[:mv.at], budget); start >= 0 {
			if end := m.forward(s, after, mv.v[mv.at+len(mv.anchor):], budget); end >= 0 {
				spans = append(spans, [2]int{start, end})
			}
		}
		if *budget--; *budget < 0 {
			return spans, false
		}
		from = at + 1
	}
}

// mayHold reports whether s may hold mv, a blind value without an anchor.
func (mv *maskValue) mayHold(s string, budget *int) bool {
	if len(s) < mv.minLen {
		return false
	}
	*budget -= len(mv.first)
	return slices.ContainsFunc(mv.first, func(f string) bool { return strings.Contains(s, f) })
}

// forward returns the end of the longest text at s[q:] made of one form of
// each character of rest in turn, or -1 if there is none. It follows every
// way the forms may be read (one may begin another: "%" and "%25"), which
// are rarely more than one.
func (m *masker) forward(s string, q int, rest string, budget *int) int {
	at, next := []int{q}, []int(nil)
	for rest != "" && len(at) > 0 {
		_, size := utf8.DecodeRuneInString(rest)
		forms := m.forms(rest[:size])
		rest = rest[size:]
		next = next[:0]
		for _, p := range at {
			*budget -= len(forms)
			for _, f := range forms {
				if strings.HasPrefix(s[p:], f) {
					next = append(next, p+len(f))
				}
			}
		}
		at, next = distinctPos(next, budget), at
		if *budget < 0 {
			return -1
		}
	}
	if len(at) == 0 {
		return -1
	}
	return slices.Max(at)
}

// backward is forward read from the end: the start of the longest text
// ending at s[:q] made of one form of each character of before, or -1.
func (m *masker) backward(s string, q int, before string, budget *int) int {
	at, next := []int{q}, []int(nil)
	for before != "" && len(at) > 0 {
		_, size := utf8.DecodeLastRuneInString(before)
		forms := m.forms(before[len(before)-size:])
		before = before[:len(before)-size]
		next = next[:0]
		for _, p := range at {
			*budget -= len(forms)
			for _, f := range forms {
				if strings.HasSuffix(s[:p], f) {
					next = append(next, p-len(f))
				}
			}
		}
		at, next = distinctPos(next, budget), at
		if *budget < 0 {
			return -1
		}
	}
	if len(at) == 0 {
		return -1
	}
	return slices.Min(at)
}
