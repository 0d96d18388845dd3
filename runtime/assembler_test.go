package runtime

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// FuzzAssembler checks that the object the assembler writes from rows in
// path order is valid JSON equal to the tree they make, and that the size it
// counts without values is that object's length.
func FuzzAssembler(f *testing.F) {
	for _, seed := range []string{
		"a\nb",
		"a/x\na/y/z\nb",
		"k/x\nk-b\nk0",
		"a\"b\n<t>\n\\",
		"é/ü\né",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, list string) {
		var rows [][]string
		for _, p := range strings.Split(list, "\n") {
			segs := strings.Split(p, "/")
			if slices.Contains(segs, "") || strings.ContainsFunc(p, func(r rune) bool { return r < 0x20 || r == 0xfffd }) {
				continue
			}
			rows = append(rows, segs)
		}
		rows = prefixFree(rows)
		slices.SortFunc(rows, func(a, b []string) int { return strings.Compare(strings.Join(a, "/"), strings.Join(b, "/")) })
		tree := map[string]any{}
		a := assembler{buf: []byte{}}
		c := assembler{count: true}
		for i, segs := range rows {
			v := []byte(strconv.Itoa(i))
			plantValue(tree, segs, v)
			a.add(segs, v, len(v))
			c.add(segs, nil, len(v))
		}
		if len(rows) == 0 {
			return
		}
		size := a.size()
		got := a.close()
		want, err := json.Marshal(tree)
		if err != nil {
			t.Fatal(err)
		}
		var back any
		if err := json.Unmarshal(got, &back); err != nil {
			t.Fatalf("rows %q assembled %s: %v", rows, got, err)
		}
		if again, _ := json.Marshal(back); string(again) != string(want) {
			t.Fatalf("rows %q\nassembled %s\nwant      %s", rows, got, want)
		}
		if size != len(got) || c.size() != len(got) {
			t.Fatalf("size %d, counted %d, for %d bytes", size, c.size(), len(got))
		}
	})
}

// prefixFree drops each row that is a prefix of another or repeats one, as
// no two stored rows ever are.
func prefixFree(rows [][]string) [][]string {
	var out [][]string
	for i, r := range rows {
		keep := true
		for j, o := range rows {
			if i != j && len(r) <= len(o) && slices.Equal(r, o[:len(r)]) && (len(r) < len(o) || j < i) {
				keep = false
				break
			}
		}
		if keep {
			out = append(out, r)
		}
	}
	return out
}

func FuzzVectorIndex(f *testing.F) {
	for _, s := range []string{"0", "7", "10", "01", "+1", "-1", "", "1e3", "99999999999999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, seg string) {
		i, err := vectorIndex(seg)
		if err == nil && strconv.Itoa(i) != seg {
			t.Fatalf("vectorIndex(%q) = %d: another spelling of an index", seg, i)
		}
	})
}

// plantValue sets v at the segments rel of tree, making maps on the way:
// the tree encoding/json writes for the rows.
func plantValue(tree map[string]any, rel []string, v json.RawMessage) {
	for _, s := range rel[:len(rel)-1] {
		next, ok := tree[s].(map[string]any)
		if !ok {
			next = map[string]any{}
			tree[s] = next
		}
		tree = next
	}
	tree[rel[len(rel)-1]] = v
}
