package mcpserver

import (
	"testing"
	"time"
)

func TestToolCache(t *testing.T) {
	c := newToolCache(100 * time.Millisecond)
	ts := newToolSet(nil)
	if got, _ := c.get("did:a"); got != nil {
		t.Fatal("an empty cache had tools")
	}
	_, gen := c.get("did:a")
	c.put("did:a", ts, time.Now(), gen)
	if got, _ := c.get("did:a"); got != ts {
		t.Fatal("a cached set was not returned")
	}
	if got, _ := c.get("did:b"); got != nil {
		t.Fatal("one caller's tools were returned to another")
	}

	_, gen = c.get("did:b")
	c.reset() // a change lands while did:b's set is being read
	c.put("did:b", ts, time.Now(), gen)
	if got, _ := c.get("did:b"); got != nil {
		t.Fatal("a set read before a change was kept")
	}
	if got, _ := c.get("did:a"); got != nil {
		t.Fatal("reset kept a set")
	}

	_, gen = c.get("did:a")
	c.put("did:a", ts, time.Now(), gen)
	time.Sleep(150 * time.Millisecond)
	if got, _ := c.get("did:a"); got != nil {
		t.Fatal("a set was returned after its ttl")
	}
}
