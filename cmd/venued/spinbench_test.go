package main

import (
	"fmt"
	"slices"
	"testing"
	"time"
)

// BenchmarkEchoBesideSpinningUploads times the venue's echo, one request
// at a time, while uploaded operations that loop forever run beside it:
// the venue must keep answering its own requests (wasm/cpugate.go). The
// run without loops is the baseline; p50 and p90 are per request.
func BenchmarkEchoBesideSpinningUploads(b *testing.B) {
	module := loopModule(b)
	for _, loops := range []int{0, 1, 2, 4} {
		b.Run(fmt.Sprintf("loops=%d", loops), func(b *testing.B) {
			m := MustRunMain(b, "", func(cfg *Config) { cfg.JobTimeout = "10m" })
			c := newClient(m)
			id, up := registerModule(b, c, `{"name": "loop", "operation": {"adapter": "wasm"}, "content": {"contentType": "application/wasm", "sha256": "SHA256"}}`, module)
			if up.status != 200 {
				b.Fatalf("upload: %d %s", up.status, up.body)
			}
			for range loops {
				u, _ := asUser(b, m)
				var job struct{ ID string }
				u.do(b, "POST", "/api/v1/invoke", `{"operation": "`+id+`"}`).json(b, &job)
				b.Cleanup(func() { u.do(b, "PUT", "/api/v1/jobs/"+job.ID+"/cancel", nil) })
			}
			time.Sleep(200 * time.Millisecond) // the loops running
			took := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for range b.N {
				start := time.Now()
				if r := c.run(b, "v/test/ops/echo", `{"still": "serving"}`); r.status != 200 {
					b.Fatalf("%d %s", r.status, r.body)
				}
				took = append(took, time.Since(start))
			}
			slices.Sort(took)
			b.ReportMetric(float64(took[len(took)/2].Microseconds()), "p50-µs")
			b.ReportMetric(float64(took[len(took)*9/10].Microseconds()), "p90-µs")
		})
	}
}
