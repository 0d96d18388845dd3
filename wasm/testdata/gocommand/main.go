// Command gocommand is a test guest: a plain WASI command (GOOS=wasip1
// GOARCH=wasm) that reads its input on stdin and writes its output on
// stdout; the input's "do" picks what it does.
package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"unsafe"
)

//go:wasmimport venue call
func venueCall(ptr unsafe.Pointer, n uint32) int64

//go:wasmimport venue result
func venueResult(ptr unsafe.Pointer, n uint32) uint32

type input struct {
	Do   string `json:"do"`
	A    int    `json:"a"`
	B    int    `json:"b"`
	Name string `json:"name"`
	Text string `json:"text"`
	Size int    `json:"size"`
}

var sink int

func main() {
	raw, err := io.ReadAll(os.Stdin)
	if err != nil {
		fail(err.Error())
	}
	var in input
	if err := json.Unmarshal(raw, &in); err != nil {
		fail("bad input: " + err.Error())
	}
	switch in.Do {
	case "":
		json.NewEncoder(os.Stdout).Encode(map[string]any{"sum": in.A + in.B, "greeting": "hello " + in.Name})
	case "fail":
		fail(in.Text)
	case "stderr": // succeeds, with a debug line on stderr
		fmt.Fprintln(os.Stderr, in.Text)
		os.Stdout.WriteString(`{"ok":true}`)
	case "notjson":
		fmt.Println("this is not JSON")
	case "silent": // succeeds and writes nothing
		fmt.Println()
	case "bigoutput":
		os.Stdout.WriteString(`"` + strings.Repeat("x", in.Size) + `"`)
	case "loop":
		for i := 0; ; i++ {
			sink = i
		}
	case "host": // one host call, the request in text
		req := []byte(in.Text)
		n := venueCall(unsafe.Pointer(&req[0]), uint32(len(req)))
		res := make([]byte, max(n, -n))
		venueResult(unsafe.Pointer(&res[0]), uint32(len(res)))
		json.NewEncoder(os.Stdout).Encode(map[string]any{"ok": n > 0, "result": string(res)})
	case "relay": // one host call, the request in text; a refusal fails the command in the host's words
		req := []byte(in.Text)
		n := venueCall(unsafe.Pointer(&req[0]), uint32(len(req)))
		res := make([]byte, max(n, -n))
		venueResult(unsafe.Pointer(&res[0]), uint32(len(res)))
		if n < 0 {
			fail(string(res))
		}
		os.Stdout.WriteString(`{"refused":false}`)
	case "readfile":
		_, err := os.ReadFile("/etc/passwd")
		json.NewEncoder(os.Stdout).Encode(map[string]any{"read": err == nil, "error": fmt.Sprint(err)})
	default:
		fail("unknown action " + in.Do)
	}
}

func fail(msg string) {
	fmt.Fprintln(os.Stderr, msg)
	os.Exit(3)
}
