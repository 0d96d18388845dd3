package mcpbridge

import (
	"context"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// session opens a client session to an in-memory SDK server.
func session(t *testing.T) *mcp.ClientSession {
	t.Helper()
	ct, st := mcp.NewInMemoryTransports()
	srv := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil)
	if _, err := srv.Connect(context.Background(), st, nil); err != nil {
		t.Fatal(err)
	}
	s, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestPoolKeys(t *testing.T) {
	base := keyOf("did:key:a", server{url: "https://x/mcp", bearer: "t1"})
	for _, tc := range []struct {
		name   string
		caller string
		s      server
		same   bool
	}{
		{"same caller, server and token", "did:key:a", server{url: "https://x/mcp", bearer: "t1", name: "other name"}, true},
		{"another caller", "did:key:b", server{url: "https://x/mcp", bearer: "t1"}, false},
		{"another token", "did:key:a", server{url: "https://x/mcp", bearer: "t2"}, false},
		{"no token", "did:key:a", server{url: "https://x/mcp"}, false},
		{"another server", "did:key:a", server{url: "https://y/mcp", bearer: "t1"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k := keyOf(tc.caller, tc.s)
			if (k == base) != tc.same {
				t.Fatalf("key %+v vs %+v: same = %v, want %v", k, base, k == base, tc.same)
			}
			if k.token == "t1" || k.token == "t2" {
				t.Fatal("the key holds the token itself")
			}
		})
	}
}

func TestPoolLendsAndExpires(t *testing.T) {
	p := newPool(200*time.Millisecond, 2)
	k := keyOf("did:key:a", server{url: "https://x/mcp"})
	a, b, c := session(t), session(t), session(t)
	if p.take(k) != nil {
		t.Fatal("an empty pool lent a session")
	}
	p.put(k, a)
	p.put(k, b)
	p.put(k, c) // over the limit: closed
	if got := p.take(k); got != b {
		t.Fatal("the most recently used session should be lent first")
	}
	if got := p.take(keyOf("did:key:other", server{url: "https://x/mcp"})); got != nil {
		t.Fatal("a session was lent to another caller")
	}
	time.Sleep(300 * time.Millisecond)
	if got := p.take(k); got != nil {
		t.Fatal("an idle session was lent after the idle time")
	}
}

func TestPoolClose(t *testing.T) {
	p := newPool(time.Minute, 2)
	k := keyOf("did:key:a", server{url: "https://x/mcp"})
	idle, late := session(t), session(t)
	p.put(k, idle)
	p.close()
	if err := idle.Ping(context.Background(), nil); err == nil {
		t.Error("an idle session is still open after close")
	}
	p.put(k, late) // a call that ends during shutdown
	if p.take(k) != nil {
		t.Error("the pool kept a session after close")
	}
	deadline := time.Now().Add(5 * time.Second)
	for late.Ping(context.Background(), nil) == nil {
		if time.Now().After(deadline) {
			t.Fatal("a session put back after close stayed open")
		}
		time.Sleep(10 * time.Millisecond)
	}
}
