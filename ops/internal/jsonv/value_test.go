package jsonv

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

func TestParse_RoundTrip(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"b":1,"a":[true,null,"x"],"c":{"z":1.50,"y":-2e3}}`, `{"b":1,"a":[true,null,"x"],"c":{"z":1.50,"y":-2e3}}`},
		{` {"a":1,"a":2,"b":3} `, `{"a":2,"b":3}`},
		{`"tab\t quote\" nl\n \u0001 é <&>"`, `"tab\t quote\" nl\n \u0001 é <&>"`},
		{`12345678901234567890`, `12345678901234567890`},
	} {
		v, err := Parse([]byte(tc.in))
		if err != nil {
			t.Fatalf("Parse(%s): %v", tc.in, err)
		}
		if got := string(Append(nil, v)); got != tc.want {
			t.Errorf("Append(Parse(%s)) = %s, want %s", tc.in, got, tc.want)
		}
		if !json.Valid(Append(nil, v)) {
			t.Errorf("Append(Parse(%s)) is not valid JSON", tc.in)
		}
	}
}

func TestParse_Errors(t *testing.T) {
	for _, in := range []string{``, `{`, `[1,]`, `1 2`, `{"a":1}x`} {
		if _, err := Parse([]byte(in)); err == nil {
			t.Errorf("Parse(%q) succeeded, want an error", in)
		}
	}
}

func TestTruthy(t *testing.T) {
	for in, want := range map[string]bool{
		`null`: false, `false`: false, `0`: false, `0.0`: false, `""`: false, `[]`: false, `{}`: false,
		`true`: true, `1`: true, `-0.5`: true, `"0"`: true, `[0]`: true, `{"a":null}`: true,
	} {
		v, _ := Parse([]byte(in))
		if got := Truthy(v); got != want {
			t.Errorf("Truthy(%s) = %v, want %v", in, got, want)
		}
	}
}

func TestParse_Depth(t *testing.T) {
	nest := func(d int) []byte {
		return []byte(strings.Repeat(`[{"a":`, d/2) + "1" + strings.Repeat(`}]`, d/2))
	}
	if _, err := Parse(nest(MaxDepth)); err != nil {
		t.Errorf("Parse of %d levels: %v", MaxDepth, err)
	}
	_, err := Parse(nest(MaxDepth + 2))
	if err == nil || !strings.Contains(err.Error(), "nests more than 10000 levels deep") {
		t.Errorf("Parse of %d levels = %v, want it refused", MaxDepth+2, err)
	}
	v, _ := Parse([]byte(`[1,{"a":[[]],"b":{}}]`))
	if d := Depth(v); d != 4 {
		t.Errorf("Depth = %d, want 4", d)
	}
}

func TestObject_ManyKeys(t *testing.T) {
	o := NewObject()
	for i := range 100 {
		o.Set(strconv.Itoa(i%40), i)
	}
	if o.Len() != 40 || o.Keys()[0] != "0" || o.Keys()[39] != "39" {
		t.Fatalf("keys %v", o.Keys())
	}
	for i := range 40 {
		last := i + 40*((99-i)/40)
		if v, ok := o.Get(strconv.Itoa(i)); !ok || v != last {
			t.Errorf("Get(%d) = %v, %v; want the last value set, %d", i, v, ok, last)
		}
	}
	if _, ok := o.Get("40"); ok {
		t.Error("Get of a missing key found something")
	}
}

// FuzzParse checks Parse against encoding/json: it accepts exactly the
// valid JSON, and what it gives back means the same.
func FuzzParse(f *testing.F) {
	for _, s := range []string{`{"a":[1,2.5e3,-0,"x\u00e9\n",true,null],"a":{}}`, `"\ud83d\ude00"`, `[1,]`, `{"a" 1}`, "\"\xff\"", `01`, `1.`, `-`, ` [ ] `} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		v, err := Parse(b)
		if valid := json.Valid(b); valid != (err == nil) {
			t.Fatalf("Parse(%q) error %v, but json.Valid says %v", b, err, valid)
		}
		if err != nil {
			return
		}
		var want, got any
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.UseNumber()
		if err := dec.Decode(&want); err != nil {
			t.Fatal(err)
		}
		dec = json.NewDecoder(bytes.NewReader(Append(nil, v)))
		dec.UseNumber()
		if err := dec.Decode(&got); err != nil {
			t.Fatalf("Append(Parse(%q)) = %q: %v", b, Append(nil, v), err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("Parse(%q) means %v, encoding/json reads %v", b, got, want)
		}
	})
}
