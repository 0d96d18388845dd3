package jsonops

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gridvenue/venue/ops/internal/jsonv"
)

func TestMerge(t *testing.T) {
	for _, tc := range []struct{ name, values, want string }{
		{"deep, later wins, order kept", `[{"b":1,"a":{"x":1,"y":2}},{"a":{"y":3,"z":4},"c":null},{"b":[1]}]`, `{"b":[1],"a":{"x":1,"y":3,"z":4}}`},
		{"a non-object replaces", `[{"a":{"x":1}},{"a":2},{"a":{"y":1}}]`, `{"a":{"y":1}}`},
		{"the same member merged into again and again", `[{"a":{"x":1}},{"a":{"y":1}},{"a":{"z":1}},{"a":{"x":2}}]`, `{"a":{"x":2,"y":1,"z":1}}`},
		{"null deletes, deep", `[{"b":{"c":1,"d":2}},{"b":{"c":null,"e":3}}]`, `{"b":{"d":2,"e":3}}`},
		{"deleted, then set again", `[{"a":1,"b":2},{"a":null},{"a":3}]`, `{"a":3,"b":2}`},
		{"nothing", `[]`, `{}`},
		{"an object over a scalar drops its nulls", `[5,{"a":null,"b":1}]`, `{"b":1}`},
		{"arrays replace whole, nulls inside kept", `[{"a":[1,2]},{"a":[null,{"x":null}]}]`, `{"a":[null,{"x":null}]}`},
		// RFC 7396, appendix A.
		{"RFC example", `[{"title":"Goodbye!","author":{"givenName":"John","familyName":"Doe"},"tags":["example","sample"],"content":"This will be unchanged"},` +
			`{"title":"Hello!","phoneNumber":"+01-123-456-7890","author":{"familyName":null},"tags":["example"]}]`,
			`{"title":"Hello!","author":{"givenName":"John"},"tags":["example"],"content":"This will be unchanged","phoneNumber":"+01-123-456-7890"}`},
		{"RFC: a patch of null", `[{"a":"foo"},null]`, `null`},
		{"RFC: a patch into a non-object", `[{"a":"foo"},{"a":{"bb":{"ccc":null}}}]`, `{"a":{"bb":{}}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			values, err := jsonv.Parse([]byte(tc.values))
			if err != nil {
				t.Fatal(err)
			}
			before := string(jsonv.Append(nil, values))
			m := merger{}
			var out any = m.owned(jsonv.NewObject())
			for _, v := range values.([]any) {
				out = m.merge(out, v)
			}
			if got := string(jsonv.Append(nil, m.prune(out))); got != tc.want {
				t.Errorf("merge = %s, want %s", got, tc.want)
			}
			if after := string(jsonv.Append(nil, values)); after != before {
				t.Errorf("the values changed: %s", after)
			}
		})
	}
}

// TestMerge_Linear merges 100000 objects of one key each. Copying the
// result for each, as merge once did, takes n²/2 member copies: minutes.
func TestMerge_Linear(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"values":[`)
	for i := range 100_000 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"k%d":%d}`, i, i)
	}
	b.WriteString(`]}`)
	start := time.Now()
	out, err := merge([]byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("merging took %s", took)
	}
	if n := out.(output).Result.(*jsonv.Object).Len(); n != 100_000 {
		t.Errorf("the result has %d members, want 100000", n)
	}
}
