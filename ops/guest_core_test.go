package ops

import (
	"fmt"
	"strings"
	"testing"
)

const pathsError = "'paths' must be a string or array of strings"

// doc is a lattice value for the inspect cases.
const doc = `{"name":"Ada Lovelace","tags":["x","y","z","w","v","u","t","s","r","q"],` +
	`"bio":"Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore et dolore magna aliqua.",` +
	`"address":{"street":"1 Main St","city":"London"},"n":42,"ok":true,"x":null}`

// Each case works under its own w/<case>/ so that the cases, which share
// one caller's lattice, cannot see each other's values.

func TestGuest_Core(t *testing.T) {
	keys, many := manyKeys(150)
	runCases(t, []guestCase{
		{name: "read passes the host's result through", lattice: map[string]string{"w/read/a": `{"b":1}`},
			op: "v/ops/core/read", in: `{"path":"w/read/a"}`,
			want: `{"exists":true,"value":{"b":1},"valueBytes":7}`},
		{name: "read of an absent path", op: "v/ops/core/read", in: `{"path":"w/read-absent/none"}`,
			want: `{"exists":false,"value":null,"valueBytes":0}`},
		{name: "read truncates over maxSize", lattice: map[string]string{"w/read-max/a": `[1,2,3,4,5]`},
			op: "v/ops/core/read", in: `{"path":"w/read-max/a","maxSize":4}`,
			want: `{"exists":true,"value":null,"valueBytes":11,"type":"Vector","truncated":true,"size":11}`},
		// The input is forwarded to the host whole, under "args": a
		// member named fn cannot turn the read into another host call.
		{name: "read is a read whatever its input holds", lattice: map[string]string{"w/read-fn/a": `1`},
			op: "v/ops/core/read", in: `{"path":"w/read-fn/a","fn":"lattice.delete"}`,
			want: `{"exists":true,"value":1,"valueBytes":1}`, wantLattice: map[string]string{"w/read-fn/a": `1`}},
		{name: "delete is a delete whatever its input holds", lattice: map[string]string{"w/delete-fn/a": `1`},
			op: "v/ops/core/delete", in: `{"path":"w/delete-fn/a","fn":"lattice.write","value":2}`,
			want: `{"deleted":true}`, wantLattice: map[string]string{"w/delete-fn/a": ""}},
		{name: "read needs a path", op: "v/ops/core/read", in: `{}`,
			refused: "missing property 'path'", wantErr: "'path' is required"},
		{name: "read with a path of the wrong type", op: "v/ops/core/read", in: `{"path":5}`,
			refused: "input.path: got number, want string", wantErr: "core:read: 'path' must be a string, got number"},
		{name: "write", op: "v/ops/core/write", in: `{"path":"w/write/a","value":{"b":[1,2]}}`,
			want: `{"written":true}`, wantLattice: map[string]string{"w/write/a": `{"b":[1,2]}`}},
		{name: "write of null", lattice: map[string]string{"w/write-null/a": `1`},
			op: "v/ops/core/write", in: `{"path":"w/write-null/a","value":null}`,
			want: `{"written":true}`, wantLattice: map[string]string{"w/write-null/a": `null`}},
		{name: "write needs a value", op: "v/ops/core/write", in: `{"path":"w/write-none/a"}`,
			refused: "missing property 'value'", wantErr: "'value' is required",
			wantLattice: map[string]string{"w/write-none/a": ""}},
		{name: "write below a string", lattice: map[string]string{"w/write-below/a": `"keep"`},
			op: "v/ops/core/write", in: `{"path":"w/write-below/a/b","value":1}`,
			wantErr:     "Cannot write below w/write-below/a: it holds a string, not a map or vector; write w/write-below/a itself to replace it",
			wantLattice: map[string]string{"w/write-below/a": `"keep"`}},
		{name: "write passes the host's error through", op: "v/ops/core/write", in: `{"path":"v/x","value":1}`,
			wantErr: "The venue namespace v/ is read-only", rejected: true},
		{name: "delete", lattice: map[string]string{"w/delete/a": `1`}, op: "v/ops/core/delete", in: `{"path":"w/delete/a"}`,
			want: `{"deleted":true}`, wantLattice: map[string]string{"w/delete/a": ""}},
		{name: "delete of an absent path", op: "v/ops/core/delete", in: `{"path":"w/delete-absent/a"}`, want: `{"deleted":false}`},
		{name: "append", lattice: map[string]string{"w/append/l": `["a"]`},
			op: "v/ops/core/append", in: `{"path":"w/append/l","value":"b"}`,
			want: `{"appended":true,"index":1}`, wantLattice: map[string]string{"w/append/l": `["a","b"]`}},
		{name: "copy", lattice: map[string]string{"w/copy/a": `{"k":1}`},
			op: "v/ops/core/copy", in: `{"from":"w/copy/a","to":"w/copy/b"}`,
			want: `{"copied":true}`, wantLattice: map[string]string{"w/copy/a": `{"k":1}`, "w/copy/b": `{"k":1}`}},
		{name: "copy needs from", op: "v/ops/core/copy", in: `{"to":"w/copy-from/b"}`, wantErr: "'from' is required"},
		{name: "copy needs to", op: "v/ops/core/copy", in: `{"from":"w/copy-to/a"}`, wantErr: "'to' is required"},
		{name: "list", lattice: map[string]string{"w/list/m": `{"b":1,"a":2,"c":3}`},
			op: "v/ops/core/list", in: `{"path":"w/list/m","offset":1,"limit":1}`,
			want: `{"exists":true,"type":"Map","count":3,"keys":["b"],"offset":1}`},
		{name: "list of an empty map still has keys", lattice: map[string]string{"w/list-empty/m": `{}`},
			op: "v/ops/core/list", in: `{"path":"w/list-empty/m"}`,
			want: `{"exists":true,"type":"Map","count":0,"keys":[],"offset":0}`},
		{name: "list past the end still has keys", lattice: map[string]string{"w/list-past/m": `{"a":1}`},
			op: "v/ops/core/list", in: `{"path":"w/list-past/m","offset":5}`,
			want: `{"exists":true,"type":"Map","count":1,"keys":[],"offset":5}`},
		{name: "list of a vector has no keys", lattice: map[string]string{"w/list-vec/v": `[1,2]`},
			op: "v/ops/core/list", in: `{"path":"w/list-vec/v"}`,
			want: `{"exists":true,"type":"Vector","count":2,"offset":0}`},
		// The guest sends no offset or limit of its own: the host's
		// defaults (from 0, up to 1000 keys) apply.
		{name: "list leaves defaults to the host", lattice: map[string]string{"w/list-defaults/m": many},
			op: "v/ops/core/list", in: `{"path":"w/list-defaults/m"}`,
			want: `{"exists":true,"type":"Map","count":150,"keys":[` + keys + `],"offset":0}`},
		{name: "list with a limit of 0 takes the default, as values/list does", lattice: map[string]string{"w/list-zero/m": many},
			op: "v/ops/core/list", in: `{"path":"w/list-zero/m","limit":0}`,
			want: `{"exists":true,"type":"Map","count":150,"keys":[` + keys + `],"offset":0}`},
		{name: "slice", lattice: map[string]string{"w/slice/l": `[1,2,3]`},
			op: "v/ops/core/slice", in: `{"path":"w/slice/l","offset":1,"limit":5}`,
			want: `{"exists":true,"type":"Vector","count":3,"values":[2,3],"offset":1,"limit":5}`},
	})
}

// manyKeys returns n keys k000, k001, ... as a JSON list and a map of them.
func manyKeys(n int) (keys, object string) {
	var ks, kvs []string
	for i := range n {
		k := fmt.Sprintf(`"k%03d"`, i)
		ks, kvs = append(ks, k), append(kvs, k+":"+fmt.Sprint(i))
	}
	return strings.Join(ks, ","), "{" + strings.Join(kvs, ",") + "}"
}

func TestGuest_CoreInspect(t *testing.T) {
	big := `{"k1":"` + strings.Repeat("x", 600_000) + `","k2":"` + strings.Repeat("y", 600_000) + `"}`
	runCases(t, []guestCase{
		{name: "path instead of paths", lattice: map[string]string{"w/i-path/doc": doc},
			op: "v/ops/core/inspect", in: `{"path":"w/i-path/doc"}`, wantErr: pathsError},
		{name: "paths of the wrong type", op: "v/ops/core/inspect", in: `{"paths":5}`, wantErr: pathsError},
		{name: "paths with a non-string", op: "v/ops/core/inspect", in: `{"paths":["w/i-mixed/a",1]}`, wantErr: pathsError},
		{name: "empty paths", op: "v/ops/core/inspect", in: `{"paths":[]}`, wantErr: "'paths' is an empty list: give at least one lattice path"},
		{name: "paths null", op: "v/ops/core/inspect", in: `{"paths":null}`, wantErr: "'paths' must be a string or array of strings"},
		{name: "an empty path", op: "v/ops/core/inspect", in: `{"paths":""}`, wantErr: `'paths' is an empty string: give a lattice path, e.g. "w/notes", or a list of them`},
		{name: "an empty path in the list", op: "v/ops/core/inspect", in: `{"paths":["w/a",""]}`, wantErr: "'paths' has an empty string at index 1: every entry must be a lattice path"},
		{name: "a small value whole", lattice: map[string]string{"w/i-small/a": `{"a":1,"b":[true,null]}`},
			op: "v/ops/core/inspect", in: `{"paths":"w/i-small/a"}`,
			want: `{"result":"{a: 1, b: [true, null]}"}`, exact: true},
		{name: "a value within the default budget", lattice: map[string]string{"w/i-default/doc": doc},
			op: "v/ops/core/inspect", in: `{"paths":"w/i-default/doc"}`,
			want: `{"result":"{name: \"Ada Lovelace\", tags: [\"x\", \"y\", \"z\", \"w\", \"v\", \"u\", \"t\", \"s\", \"r\", \"q\"], ` +
				`bio: \"Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore et dolore magna aliqua.\", ` +
				`address: {street: \"1 Main St\", city: \"London\"}, n: 42, ok: true, x: null}"}`, exact: true},
		{name: "a value cut to a budget", lattice: map[string]string{"w/i-budget/doc": doc},
			op: "v/ops/core/inspect", in: `{"paths":"w/i-budget/doc","budget":150}`,
			want: `{"result":"{name: \"Ada Lovelace\", tags: [\"x\", … /* 9 more */], bio: \"Lorem ips…\" /* 123 chars */, ` +
				`address: {… /* 2 keys */}, n: 42, ok: true, x: null}"}`, exact: true},
		{name: "several paths share the budget",
			lattice: map[string]string{"w/i-many/a": `[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15]`, "w/i-many/b": `"hello"`},
			op:      "v/ops/core/inspect", in: `{"paths":["w/i-many/a","w/i-many/b","w/i-many/none"],"budget":90}`,
			want: `{"result":"w/i-many/a: [1, 2, 3, … /* 12 more */]\nw/i-many/b: \"hello\"\nw/i-many/none: /* absent */"}`, exact: true},
		{name: "compact", lattice: map[string]string{"w/i-compact/a": `{"a":[1,2,3],"b":"text"}`},
			op: "v/ops/core/inspect", in: `{"paths":"w/i-compact/a","compact":true}`,
			want: `{"result":"{a:[1,2,3],b:\"text\"}"}`, exact: true},
		{name: "a value too large to read is described from its listing", lattice: map[string]string{"w/i-big/v": big},
			op: "v/ops/core/inspect", in: `{"paths":"w/i-big/v","budget":100}`,
			want: `{"result":"{… /* 2 keys, 1200017 bytes: k1, k2 */}"}`, exact: true},
		{name: "a tiny budget still summarises", lattice: map[string]string{"w/i-tiny/doc": doc},
			op: "v/ops/core/inspect", in: `{"paths":"w/i-tiny/doc","budget":1}`,
			want: `{"result":"{…}"}`, exact: true},
	})
}
