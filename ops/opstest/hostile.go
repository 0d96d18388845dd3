package opstest

import (
	"fmt"
	"strings"
	"time"
)

// Case is one hostile invocation and what must come of it: the job
// completes with an output containing Output, or fails with an error
// containing Error. Either way it must end by itself, within CPU.
type Case struct {
	Name    string
	Op      string            // a catalog path, e.g. v/ops/schema/validate
	Input   string            // the input, JSON
	Lattice map[string]string // values the caller writes first: path → JSON
	Output  string
	Error   string
}

// CPU is how much processor time any case may take through the Wasm host:
// the fixed operations take about a second at worst, the old ones took
// minutes or never ended. Tests measure processor time, which other work
// on a shared machine inflates less than wall time, but a busy host's
// processor runs slower too: the worst case took 3.7 s on one, hence
// twice the audit's 3 s. The race detector inflates it more, and gets more.
const CPU = 6 * time.Second * slowdown

// Deadline is the job deadline of a venue running the cases end to end,
// with the same room.
const Deadline = CPU

// Cases returns every hostile case, family by family.
func Cases() []Case {
	var all []Case
	for _, family := range [][]Case{schemaCases(), jsonCases(), inspectCases(), otherCases()} {
		all = append(all, family...)
	}
	return all
}

const validate = "v/ops/schema/validate"

func schemaCases() []Case {
	return []Case{
		{Name: "schema: $refs doubling 40 times (the audit's)", Op: validate,
			Input:  `{"schema":` + DoublingRefs(40) + `,"value":1}`,
			Output: `"valid":false`},
		{Name: "schema: $refs doubling 40 times, valid", Op: validate,
			Input:  `{"schema":` + DoublingRefs(40) + `,"value":"s"}`,
			Output: `{"valid":true}`},
		{Name: "schema: 20000 allOf branches over 20000 items", Op: validate,
			Input: `{"schema":{"items":{"allOf":[` + repeat(`{}`, 20000) + `]}},"value":[` + repeat(`1`, 20000) + `]}`,
			Error: "schema too complex to check within the venue's limits"},
		{Name: "schema: a $ref to itself", Op: validate, Input: `{"schema":{"$ref":"#"},"value":1}`,
			Error: `$ref "#" leads back to itself without consuming any of the value (at value)`},
		{Name: "schema: not over a $ref loop is no pass", Op: validate,
			Input: `{"schema":{"$defs":{"x":{"anyOf":[{"type":"string"},{"$ref":"#/$defs/x"}]}},"not":{"$ref":"#/$defs/x"}},"value":1}`,
			Error: `leads back to itself`},
		{Name: "schema: uniqueItems over 100000 items", Op: validate,
			Input:  `{"schema":{"uniqueItems":true},"value":[` + numbers(100000) + `]}`,
			Output: `{"valid":true}`},
		{Name: "schema: uniqueItems finds equal objects in any member order", Op: validate,
			Input:  `{"schema":{"uniqueItems":true},"value":[` + numbers(50000) + `,{"a":1,"b":[1.0]},{"b":[1],"a":1.0}]}`,
			Output: `items 50000 and 50001 are equal`},
		{Name: "schema: a 1000-instruction pattern over a 1 MB string, 50 times", Op: validate,
			Input: `{"schema":{"allOf":[` + repeat(`{"pattern":"a{1000}"}`, 50) + `]},"value":"` + strings.Repeat("a", 1<<20) + `"}`,
			Error: "schema too complex to check within the venue's limits"},
		{Name: "schema: patterns too large to compile", Op: validate,
			Input: `{"schema":{"anyOf":[` + patterns(120) + `]},"value":"a"}`,
			Error: "the schema's patterns are too large for the venue"},
		// The venue keeps JSON at most 1000 levels deep (an input of 999 with
		// its wrapper): deeper cases are refused at the door, before any op.
		{Name: "schema: a value 998 deep against a recursive schema", Op: validate,
			Input:  `{"schema":{"items":{"$ref":"#"}},"value":` + nested("[", "", "]", 998) + `}`,
			Output: `{"valid":true}`},
		{Name: "schema: a value 998 deep through three $refs a level", Op: validate,
			Input:  `{"schema":{"items":{"$ref":"#/$defs/a"},"$defs":{"a":{"$ref":"#/$defs/b"},"b":{"$ref":"#"}}},"value":` + nested("[", "", "]", 998) + `}`,
			Output: `{"valid":true}`},
		{Name: "schema: a chain of 50000 $refs", Op: validate,
			Input: `{"schema":` + refChain(50000) + `,"value":1}`,
			Error: "the schema's $refs chain more than 1000 deep at value"},
		{Name: "schema: a 200 kB pattern", Op: validate,
			Input: `{"schema":{"pattern":"` + strings.Repeat("a", 200_000) + `"},"value":"a"}`,
			Error: "the schema's patterns are too large for the venue"},
		{Name: "schema: a schema 996 deep", Op: validate,
			Input:  `{"schema":` + nested(`{"not":`, `{"type":"string"}`, "}", 996) + `,"value":1}`,
			Output: `"valid":false`},
		{Name: "schema: a $ref to what is not a schema", Op: validate,
			Input: `{"schema":{"required":["a"],"$ref":"#/required"},"value":{}}`,
			Error: `$ref "#/required" does not point to a schema`},
		{Name: "schema: infer a value 498 deep", Op: "v/ops/schema/infer",
			Input:  `{"value":` + nested("[", "1", "]", 498) + `}`,
			Output: `{"type":"integer"}`},
		{Name: "schema: infer objects 998 deep", Op: "v/ops/schema/infer",
			Input: `{"value":` + nested(`{"a":`, "1", "}", 998) + `}`,
			Error: "Operation returned output nested more than 1008 levels deep, more than the venue keeps"},
		{Name: "schema: infer 50000 objects of different keys", Op: "v/ops/schema/infer",
			Input:  `{"value":[` + objects(50000) + `]}`,
			Output: `"k49999":{"type":"integer"}`},
	}
}

func jsonCases() []Case {
	return []Case{
		{Name: "json: merge 50000 objects of different keys", Op: "v/ops/json/merge",
			Input: `{"values":[` + objects(50000) + `]}`, Output: `"k49999":1}`},
		{Name: "json: merge 500 objects 500 deep", Op: "v/ops/json/merge",
			Input: `{"values":[` + repeat(nested(`{"a":`, `{"b":1}`, "}", 500), 500) + `]}`, Output: `{"b":1}`},
		{Name: "json: merge 20000 values", Op: "v/ops/json/merge",
			Input: `{"values":[` + repeat(`{"a":{"b":[1,2,3],"c":"xyz"}}`, 20000) + `]}`, Output: `{"result":{"a":{"b":[1,2,3],"c":"xyz"}}}`},
		{Name: "json: assoc along a path of 20000 keys", Op: "v/ops/json/assoc",
			Input: `{"target":{},"path":"` + strings.Repeat("a/", 19999) + `a","value":1}`,
			Error: "the result would nest too deeply: 20001 levels"},
		{Name: "json: select among 50000 cases", Op: "v/ops/json/select",
			Input: `{"key":"k49999","cases":` + object(50000) + `}`, Output: `{"result":1}`},
		{Name: "json: cond over 50000 cases", Op: "v/ops/json/cond",
			Input: `{"cases":[` + repeat(`{"if":0,"then":1}`, 50000) + `],"default":2}`, Output: `{"result":2}`},
	}
}

const inspect = "v/ops/core/inspect"

func inspectCases() []Case {
	chain := nested(`{"k1":1,"k2":"yy","z":`, `"`+strings.Repeat("x", 1000)+`"`, "}", 60)
	return []Case{
		{Name: "inspect: 60 nested objects in a small budget", Op: inspect,
			Lattice: map[string]string{"w/hostile/chain": chain},
			Input:   `{"paths":"w/hostile/chain","budget":60}`, Output: `{k1: 1`},
		{Name: "inspect: 60 nested objects in a large budget", Op: inspect,
			Lattice: map[string]string{"w/hostile/chain": chain},
			Input:   `{"paths":"w/hostile/chain","budget":3000}`, Output: `{k1: 1`},
		{Name: "inspect: a 900 kB string 998 arrays deep", Op: inspect,
			Lattice: map[string]string{"w/hostile/deep": nested("[", `"`+strings.Repeat("x", 900_000)+`"`, "]", 998)},
			Input:   `{"paths":"w/hostile/deep","budget":800000}`, Output: `[[[`},
		{Name: "inspect: an empty string after a long key", Op: inspect,
			Lattice: map[string]string{"w/hostile/key": `{"` + strings.Repeat("k", 40) + `":""}`},
			Input:   `{"paths":"w/hostile/key","budget":30}`, Output: `: \"\"}`},
		{Name: "inspect: 20000 keys in a large budget", Op: inspect,
			Lattice: map[string]string{"w/hostile/wide": object(20000)},
			Input:   `{"paths":"w/hostile/wide","budget":100000}`, Output: `k0: 1`},
		{Name: "inspect: 20000 keys in a small budget", Op: inspect,
			Lattice: map[string]string{"w/hostile/wide": object(20000)},
			Input:   `{"paths":"w/hostile/wide","budget":100}`, Output: `k0: 1`},
		{Name: "inspect: 1001 paths", Op: inspect,
			Input: `{"paths":[` + repeat(`"w/x"`, 1001) + `]}`, Error: "at most 1000 paths"},
	}
}

func otherCases() []Case {
	return []Case{
		{Name: "secret: a 1 MB value", Op: "v/ops/secret/set",
			Input: `{"name":"BIG","value":"` + strings.Repeat("s", 1<<20) + `"}`, Error: "the limit is"},
	}
}

// DoublingRefs is the audit's schema: $defs a0 … an, each level an anyOf of
// two $refs to the one before, so that checking a value naively applies
// a0 2^n times.
func DoublingRefs(n int) string {
	var b strings.Builder
	b.WriteString(`{"$defs":{"a0":{"type":"string"}`)
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, `,"a%d":{"anyOf":[{"$ref":"#/$defs/a%d"},{"$ref":"#/$defs/a%d"}]}`, i, i-1, i-1)
	}
	fmt.Fprintf(&b, `},"$ref":"#/$defs/a%d"}`, n)
	return b.String()
}

// refChain is a schema whose $defs a0 … an-1 each $ref the next.
func refChain(n int) string {
	var b strings.Builder
	b.WriteString(`{"$ref":"#/$defs/a0","$defs":{`)
	for i := range n - 1 {
		fmt.Fprintf(&b, `"a%d":{"$ref":"#/$defs/a%d"},`, i, i+1)
	}
	fmt.Fprintf(&b, `"a%d":{"type":"integer"}}}`, n-1)
	return b.String()
}

func repeat(s string, n int) string { return strings.TrimSuffix(strings.Repeat(s+",", n), ",") }

func nested(open, inner, close string, depth int) string {
	return strings.Repeat(open, depth) + inner + strings.Repeat(close, depth)
}

func numbers(n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprint(&b, i)
	}
	return b.String()
}

// objects is n objects {"k<i>":1}; object is one object with those keys.
func objects(n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"k%d":1}`, i)
	}
	return b.String()
}

func object(n int) string {
	var b strings.Builder
	b.WriteByte('{')
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"k%d":1`, i)
	}
	return b.String() + "}"
}

// patterns is n schemas with distinct patterns of 1000 instructions each.
func patterns(n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"pattern":"a{1000}%d"}`, i)
	}
	return b.String()
}
