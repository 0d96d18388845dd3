package agent

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	venue "github.com/gridvenue/venue"
)

// BenchmarkRequest_ManySessions: a request on a new session of an agent
// that has served n requests before, each on a session of its own (and
// with a timeline entry each). docs/PERFORMANCE.md, "Agents".
func BenchmarkRequest_ManySessions(b *testing.B) {
	for _, n := range []int{0, 300, 1000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			ctx := venue.WithCaller(context.Background(), venue.Caller{DID: "did:key:z6MkOwner"})
			eng, _ := lossVenue(b, filepath.Join(b.TempDir(), "venue.db"), New(Config{SingleNode: true}), 8)
			request := func(in string) { mustInvoke(b, ctx, eng, "v/ops/agent/request", in) }
			mustInvoke(b, ctx, eng, "v/ops/agent/create", `{"agentId": "bot", "config": {"operation": "v/ops/transition/scripted"}}`)
			for i := range n {
				request(fmt.Sprintf(`{"agentId": "bot", "input": {"n": %d, "pad": "some text of a turn"}, "timeout": 10000}`, i))
			}
			b.ResetTimer()
			for i := range b.N {
				request(fmt.Sprintf(`{"agentId": "bot", "input": {"n": %d}, "timeout": 10000}`, i))
			}
		})
	}
}
