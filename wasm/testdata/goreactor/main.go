// Command goreactor is a test guest: a Go reactor (GOOS=wasip1 GOARCH=wasm
// -buildmode=c-shared) whose input's "do" picks what it does, from the
// trivial operation the benchmarks time to the hostile ones the tests
// expect the host to survive.
package main

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"time"
)

func main() {}

type input struct {
	Do    string            `json:"do"`
	A     int               `json:"a"`
	B     int               `json:"b"`
	Name  string            `json:"name"`
	Text  string            `json:"text"`
	Size  int               `json:"size"`
	Reqs  []json.RawMessage `json:"reqs"`
	Fn    string            `json:"fn"`
	Ptr   uint32            `json:"ptr"`
	Len   uint32            `json:"len"`
	Level uint32            `json:"level"`
}

type sum struct {
	Sum      int    `json:"sum"`
	Greeting string `json:"greeting"`
	Op       string `json:"op"`
}

var (
	calls int      // how many calls this instance has served
	hoard [][]byte // what "alloc" keeps
	sink  int
)

func handle(op string, raw []byte) ([]byte, error) {
	calls++
	var in input
	if err := json.Unmarshal(raw, &in); err != nil {
		return nil, err
	}
	switch in.Do {
	case "":
		return json.Marshal(sum{Sum: in.A + in.B, Greeting: "hello " + in.Name, Op: op})
	case "fail":
		return nil, errors.New(in.Text)
	case "sleep":
		time.Sleep(time.Duration(in.Size) * time.Millisecond)
		return []byte(`{"slept":true}`), nil
	case "count":
		return json.Marshal(map[string]int{"calls": calls, "allocs": allocs})
	case "host":
		return hostCalls(in.Reqs)
	case "hosthex":
		// The answers hex-encoded, so that the engine's masking of the
		// output cannot hide what the guest was handed.
		out, err := hostCalls(in.Reqs)
		if err != nil {
			return nil, err
		}
		return json.Marshal(map[string]string{"hex": hex.EncodeToString(out)})
	case "relay": // the host calls in turn; the first refused fails the call with Text and the host's words
		for _, r := range in.Reqs {
			if res, ok := hostCall(r); !ok {
				return nil, errors.New(in.Text + string(res))
			}
		}
		return []byte(`{"refused":false}`), nil
	case "log":
		logText(in.Level, in.Text)
		return []byte(`{"logged":true}`), nil
	case "env":
		return json.Marshal(map[string]any{"args": os.Args, "env": os.Environ(), "now": time.Now().UnixMilli()})
	case "readfile":
		return readFiles()
	case "spin": // compute for size ms, with no host call the host could end
		for end := time.Now().Add(time.Duration(in.Size) * time.Millisecond); time.Now().Before(end); {
			sink++
		}
		return []byte(`{"spun":true}`), nil
	case "badptr":
		return badPointer(in)
	case "loop":
		for i := 0; ; i++ {
			sink = i
		}
	case "alloc":
		for {
			b := make([]byte, max(in.Size, 1)<<20)
			b[len(b)-1] = 1
			hoard = append(hoard, b)
		}
	case "nilderef":
		var p *input
		return []byte(p.Name), nil
	case "bigoutput":
		return []byte(`"` + strings.Repeat("x", in.Size) + `"`), nil
	}
	return nil, errors.New("unknown action " + in.Do)
}

// hostCalls makes each request in turn and reports every answer.
func hostCalls(reqs []json.RawMessage) ([]byte, error) {
	type answer struct {
		OK     bool            `json:"ok"`
		Result json.RawMessage `json:"result,omitempty"`
		Error  string          `json:"error,omitempty"`
	}
	var out []answer
	for _, r := range reqs {
		res, ok := hostCall(r)
		if ok {
			out = append(out, answer{OK: true, Result: res})
		} else {
			out = append(out, answer{Error: string(res)})
		}
	}
	return json.Marshal(map[string]any{"answers": out})
}

// readFiles tries what a sandbox must refuse and reports what happened.
func readFiles() ([]byte, error) {
	report := map[string]any{}
	for _, p := range []string{"/etc/passwd", "etc/passwd", "../../../../etc/passwd", "/"} {
		f, err := os.Open(p)
		if err != nil {
			report[p] = err.Error()
			continue
		}
		b := make([]byte, 64)
		n, _ := f.Read(b)
		f.Close()
		report[p] = "READ: " + string(b[:n])
	}
	return json.Marshal(report)
}

// badPointer hands the host a pointer and length of the test's choosing.
func badPointer(in input) ([]byte, error) {
	req := []byte(`{"fn":"nonesuch"}`)
	switch in.Fn {
	case "call":
		venueCall(in.Ptr, in.Len)
	case "log":
		venueLog(1, in.Ptr, in.Len)
	case "result": // a result is pending; collect it into a bad buffer
		venueCall(addr(req), uint32(len(req)))
		venueResult(in.Ptr, in.Len)
	case "result-none":
		buf := make([]byte, 8)
		venueResult(addr(buf), 8)
	case "result-small":
		n := -venueCall(addr(req), uint32(len(req)))
		buf := make([]byte, n)
		venueResult(addr(buf), uint32(n-1))
	}
	return []byte(`{"survived":true}`), nil
}
