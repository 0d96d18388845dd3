// Command benchreactor is the benchmarks' guest: a Go reactor with only the
// trivial operation, the size of a typical standard-Go module (~3 MB).
package main

import "encoding/json"

func main() {}

type input struct {
	A    int    `json:"a"`
	B    int    `json:"b"`
	Name string `json:"name"`
}

type sum struct {
	Sum      int    `json:"sum"`
	Greeting string `json:"greeting"`
	Op       string `json:"op"`
}

func handle(op string, raw []byte) ([]byte, error) {
	var in input
	if err := json.Unmarshal(raw, &in); err != nil {
		return nil, err
	}
	return json.Marshal(sum{Sum: in.A + in.B, Greeting: "hello " + in.Name, Op: op})
}
