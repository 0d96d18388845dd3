package runtime

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestSetIn_KeepsTheRest: an edit below a stored value changes the member
// it writes and nothing else, byte for byte: order, escapes, numbers as
// written, white space, and keys that do not decode to themselves.
func TestSetIn_KeepsTheRest(t *testing.T) {
	for _, tc := range []struct {
		name, doc, path, v, want string
	}{
		{"a new member goes last", `{"z":"<b>&","a":{"k":1},"n":1.0}`, "a/k2", `2`,
			`{"z":"<b>&","a":{"k":1,"k2":2},"n":1.0}`},
		{"a lone surrogate key stays", `{"\ud800":"lone","a":{}}`, "a/x", `true`, `{"\ud800":"lone","a":{"x":true}}`},
		{"a member is replaced in place", `{"b":1,"a":[1,2],"c":1e400}`, "a", `"x"`, `{"b":1,"a":"x","c":1e400}`},
		{"an escaped key is the same key", `{"\u0061":1,"b":2}`, "a", `3`, `{"\u0061":3,"b":2}`},
		{"an element is replaced by index", `[0,{"k":[1,2,3]},"<"]`, "1/k/2", `"y"`, `[0,{"k":[1,2,"y"]},"<"]`},
		{"white space stays", "{ \"a\" : { } ,\n \"b\" : [ 1 , 2 ] }", "a/x", `1`, "{ \"a\" : { \"x\":1} ,\n \"b\" : [ 1 , 2 ] }"},
		{"null becomes a map", `{"a":null}`, "a/b/c", `1`, `{"a":{"b":{"c":1}}}`},
		{"a new key is escaped as JSON needs only", `{}`, "<a\"b>", `1`, `{"<a\"b>":1}`},
		{"strings holding brackets and commas", `{"s":"},{\"a\":[","a":{"t":"]"}}`, "a/u", `0`, `{"s":"},{\"a\":[","a":{"t":"]","u":0}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := setIn(json.RawMessage(tc.doc), "w", strings.Split(tc.path, "/"), json.RawMessage(tc.v))
			if err != nil || string(got) != tc.want {
				t.Fatalf("setIn = %s, %v; want %s", got, err, tc.want)
			}
		})
	}
}

func TestDeleteIn_KeepsTheRest(t *testing.T) {
	for _, tc := range []struct {
		name, doc, path, want string
		found                 bool
	}{
		{"the first member", `{"a":1,"b":"<"}`, "a", `{"b":"<"}`, true},
		{"the last member", `{"a":1,"b":"<"}`, "b", `{"a":1}`, true},
		{"the only member", `{"a":1}`, "a", `{}`, true},
		{"a middle element", `[1,[2],3]`, "1", `[1,3]`, true},
		{"deep, with spaces", "{ \"a\" : [ 1 , 2 ] , \"z\" : 1.50 }", "a/1", "{ \"a\" : [ 1  ] , \"z\" : 1.50 }", true},
		{"not there", `{"a":1}`, "b", `{"a":1}`, false},
		{"an index past the end", `[1]`, "1", `[1]`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, found, err := deleteIn(json.RawMessage(tc.doc), strings.Split(tc.path, "/"))
			if err != nil || found != tc.found || string(got) != tc.want {
				t.Fatalf("deleteIn = %s, %v, %v; want %s, %v", got, found, err, tc.want, tc.found)
			}
		})
	}
}

// FuzzSplice checks the splicing against decoding and encoding: the same
// value results, and reading it back by path finds what was written.
func FuzzSplice(f *testing.F) {
	for _, s := range []string{`{"a":{"b":[1,2,{"c":null}]}}`, `[1,[2,[3]],"x"]`, ` { "a" : [ ] } `, `{"\u0061":1,"a\"":2}`, `{}`} {
		f.Add(s, "a/b/2/c", `{"v":1}`)
		f.Add(s, "0", `[]`)
	}
	f.Fuzz(func(t *testing.T, doc, path, v string) {
		var want any
		if json.Unmarshal([]byte(doc), &want) != nil || !json.Valid([]byte(v)) || path == "" || !utf8.ValidString(path) {
			return
		}
		if dup, _, _ := duplicateMember([]byte(doc)); dup {
			return // refused when written
		}
		segs := strings.Split(path, "/")
		got, err := setIn(json.RawMessage(doc), "w", segs, json.RawMessage(v))
		if err != nil {
			return
		}
		if !json.Valid(got) {
			t.Fatalf("setIn(%s, %q, %s) = %s, not JSON", doc, path, v, got)
		}
		back, ok := walk(got, segs)
		if !ok || !sameJSON(back, []byte(v)) {
			t.Fatalf("setIn(%s, %q, %s) = %s, which reads back %s", doc, path, v, got, back)
		}
		del, found, err := deleteIn(got, segs)
		if err != nil || !found || !json.Valid(del) {
			t.Fatalf("deleteIn(%s, %q) = %s, %v, %v", got, path, del, found, err)
		}
		if _, still := walk(del, segs); still && !isVectorPath(got, segs) {
			t.Fatalf("deleteIn(%s, %q) = %s, which still holds it", got, path, del)
		}
	})
}

// duplicateMember reports JSON the venue refuses as a value.
func duplicateMember(b []byte) (bool, string, error) {
	err := refuseDuplicates("Value", b)
	return err != nil, "", nil
}

// isVectorPath reports whether segs ends at a vector element, which a
// delete shifts rather than leaves empty.
func isVectorPath(doc []byte, segs []string) bool {
	parent, ok := walk(doc, segs[:len(segs)-1])
	return ok && typeOf(parent) == "Vector"
}

func sameJSON(a, b []byte) bool {
	var x, y any
	da, db := json.NewDecoder(bytes.NewReader(a)), json.NewDecoder(bytes.NewReader(b))
	da.UseNumber()
	db.UseNumber()
	return da.Decode(&x) == nil && db.Decode(&y) == nil && reflect.DeepEqual(x, y)
}
