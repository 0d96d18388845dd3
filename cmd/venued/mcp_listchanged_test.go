package main

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestMCP_ToolsListChanged: adding or removing a bridge sends
// notifications/tools/list_changed on the sessions' streams, and the list
// read after it has the change.
func TestMCP_ToolsListChanged(t *testing.T) {
	url := vendorServer(t)
	m := MustRunMain(t, "", allowLoopback)
	c, _ := asUser(t, m)
	c.do(t, "PUT", "/api/v1/secrets/VENDOR", `{"value":"`+bridgeToken+`"}`)

	changed := make(chan struct{}, 8)
	client := mcp.NewClient(&mcp.Implementation{Name: "venue-test", Version: "0.0.1"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} }})
	sess, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: "http://" + m.Addr + "/mcp",
		HTTPClient: &http.Client{Transport: bearerTransport{c.token}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sess.Close() })
	if caps := sess.InitializeResult().Capabilities; caps.Tools == nil || !caps.Tools.ListChanged {
		t.Fatalf("the venue does not announce tools.listChanged: %+v", caps.Tools)
	}
	// The notification travels on the session's GET stream, which the
	// client opens after initialize, and a notification sent before the
	// stream is up is dropped (the SDK keeps no event store): until one
	// arrives, each further refresh of the bridge (also a change) is
	// another chance.
	if rec := jobOf(t, c, "v/ops/mcp/server/add", map[string]any{"name": "vendor", "url": url, "auth": "s/VENDOR"}); rec["status"] != "COMPLETE" {
		t.Fatalf("server/add: %v", rec["error"])
	}
	for attempt := 0; ; attempt++ {
		select {
		case <-changed:
		case <-time.After(time.Second):
			if attempt == 10 {
				t.Fatal("no notifications/tools/list_changed after server/add and 10 refreshes")
			}
			jobOf(t, c, "v/ops/mcp/server/refresh", map[string]any{"name": "vendor"})
			continue
		}
		break
	}
	if toolNames(t, sess)["vendor_echo"] == nil {
		t.Fatal("after server/add, vendor_echo is not listed")
	}

	for quiet := false; !quiet; { // let late notifications of the refreshes arrive first
		select {
		case <-changed:
		case <-time.After(300 * time.Millisecond):
			quiet = true
		}
	}
	if rec := jobOf(t, c, "v/ops/mcp/server/remove", map[string]any{"name": "vendor"}); rec["status"] != "COMPLETE" {
		t.Fatalf("server/remove: %v", rec["error"])
	}
	select {
	case <-changed:
	case <-time.After(10 * time.Second):
		t.Fatal("no notifications/tools/list_changed after server/remove")
	}
	if toolNames(t, sess)["vendor_echo"] != nil {
		t.Fatal("after server/remove, vendor_echo is still listed")
	}
}
