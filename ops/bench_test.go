package ops

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/gridvenue/venue/runtime"
)

// BenchmarkCoreRead invokes v/ops/core/read with wait through the real
// engine and Wasm host, as POST /api/v1/invoke does without the HTTP: the
// Wasm share of an end-to-end invoke (make bench -op v/ops/core/read).
//
//	go test -run '^$' -bench CoreRead -benchmem ./ops/
func BenchmarkCoreRead(b *testing.B) {
	for _, bc := range []struct{ name, path string }{
		{"venue-info", "v/info/did"},
		{"workspace", "w/bench"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			s := mustStack(b)
			if err := s.Write(s.alice, "w/bench", json.RawMessage(`{"a":1}`)); err != nil {
				b.Fatal(err)
			}
			req := runtime.InvokeRequest{Operation: "v/ops/core/read",
				Input: json.RawMessage(`{"path":"` + bc.path + `"}`), Wait: time.Minute}
			b.ReportAllocs()
			b.SetParallelism(4) // enough waiting invokes to keep both cores busy
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					j, err := s.Invoke(s.alice, req)
					if err != nil || j.Status != "COMPLETE" {
						b.Fatalf("%v %+v", err, j)
					}
				}
			})
		})
	}
}
