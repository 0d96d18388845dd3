package main

import (
	"bytes"
	"io"
	"net/http"
	"os"
	"testing"
)

// BenchmarkInvokeEcho drives POST /api/v1/invoke with wait on a real venue
// over loopback, for profiling the request path (go test -bench Invoke
// -cpuprofile). tools/bench compares whole processes side by side.
func BenchmarkInvokeEcho(b *testing.B) {
	m := MustRunMain(b, os.Getenv("VENUE_BENCH_STORE"))
	url := "http://" + m.Addr + "/api/v1/invoke"
	body := []byte(`{"operation":"v/test/ops/echo","input":{"n":1,"greeting":"hello"},"wait":true}`)
	tr := &http.Transport{MaxIdleConnsPerHost: 64}
	client := &http.Client{Transport: tr}
	b.SetParallelism(16)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			resp, err := client.Post(url, "application/json", bytes.NewReader(body))
			if err != nil {
				b.Fatal(err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 201 {
				b.Fatal(resp.StatusCode)
			}
		}
	})
}
