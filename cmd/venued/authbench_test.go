package main

import (
	"bytes"
	"io"
	"net/http"
	"os"
	"testing"
)

// BenchmarkInvokeEchoAsUser is BenchmarkInvokeEcho with a bearer token
// self-issued by a did:key user, reused as curl or a signed-in client
// would: the cost of authentication on the hot path.
func BenchmarkInvokeEchoAsUser(b *testing.B) {
	m := MustRunMain(b, os.Getenv("VENUE_BENCH_STORE"))
	auth := "Bearer " + newUser(b).token(b, m)
	url := "http://" + m.Addr + "/api/v1/invoke"
	body := []byte(`{"operation":"v/test/ops/echo","input":{"n":1,"greeting":"hello"},"wait":true}`)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	b.SetParallelism(16)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			req, _ := http.NewRequest("POST", url, bytes.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Authorization", auth)
			resp, err := client.Do(req)
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
