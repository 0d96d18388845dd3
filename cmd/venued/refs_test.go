package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"testing"
)

// TestREST_ReferenceForms reads assets and operations through every
// reference form REFERENCE §14.3.7 says clients send, DID URLs included,
// with slashes unencoded or the whole reference encoded as one segment.
func TestREST_ReferenceForms(t *testing.T) {
	t.Parallel() // long, and free of timing: it runs beside the other parallel tests
	forEachStore(t, func(t *testing.T, c *client, m *Main) {
		var st struct{ DID string }
		c.do(t, "GET", "/api/v1/status", nil).json(t, &st)
		content := []byte("by reference\n")
		sum := sha256.Sum256(content)
		meta := fmt.Sprintf(`{"name": "ref", "content": {"contentType": "text/plain", "sha256": "%x"}}`, sum)
		var id string
		c.do(t, "POST", "/api/v1/assets", meta).json(t, &id)
		mustOK(t, c.do(t, "PUT", "/api/v1/assets/"+id+"/content", content))
		bare := strings.TrimPrefix(id, "0x")
		inline := `{"name":"inline","description":"kept in the lattice"}`
		for path, value := range map[string]string{"w/pins/ref": `"a/` + bare + `"`, "o/ref": `"` + id + `"`,
			"w/inline": inline, "w/number": `42`} {
			mustOK(t, c.run(t, "v/ops/core/write", `{"path": "`+path+`", "value": `+value+`}`))
		}
		didURL := st.DID + "/a/" + bare
		for _, tc := range []struct {
			name, ref string
			status    int
			want      string // the metadata, or a part of the error
		}{
			{"0x id", id, 200, meta},
			{"bare hex", bare, 200, meta},
			{"a/<hash>", "a/" + bare, 200, meta},
			{"/a/<hash>", "/a/" + bare, 200, meta},
			{"the venue's DID URL", didURL, 200, meta},
			{"the venue's DID URL as one encoded segment", url.PathEscape(didURL), 200, meta},
			{"the venue's DID URL with encoded slashes", strings.ReplaceAll(didURL, "/", "%2F"), 200, meta},
			{"a workspace path holding a/<hash>", "w/pins/ref", 200, meta},
			{"a pin holding the id", "o/ref", 200, meta},
			{"a DID-qualified pin", st.DID + "/o/ref", 200, meta},
			{"the asset's own DID (/a/<hex>/did.json)", st.DID + ":a:" + bare, 200, meta},
			{"a workspace path holding metadata", "w/inline", 200, inline},
			{"a catalog entry", "v/ops/core/read", 200, `"adapter":"core:read"`},
			{"another venue's DID URL", "did:web:elsewhere.example/a/" + bare, 404, "Asset not found: did:web:elsewhere.example/a/"},
			{"an empty path", "w/nothing", 404, "Asset not found: w/nothing"},
			{"a path holding a number", "w/number", 404, "holds neither an asset id nor metadata"},
			{"a path outside w/, o/ and v/", "j/anything", 400, "must be in w/, o/ or v/"},
			{"a path stepping up", "w/../s/x", 400, "may not step up"},
			{"a display name", "core:read", 400, "Invalid asset ID: core:read"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				r := c.do(t, "GET", "/api/v1/assets/"+tc.ref, nil)
				if tc.status == 200 {
					if r.status != 200 || !jsonSame(r.body, []byte(tc.want)) && !strings.Contains(string(r.body), tc.want) {
						t.Fatalf("%d %s, want %s", r.status, r.body, tc.want)
					}
					return
				}
				if msg := r.errorText(t); r.status != tc.status || !strings.Contains(msg, tc.want) {
					t.Fatalf("%d %q, want %d with %q", r.status, msg, tc.status, tc.want)
				}
			})
		}
		t.Run("content by DID URL and by pin", func(t *testing.T) {
			// Metadata held at a path, never registered, names content by its hash.
			held := fmt.Sprintf(`{"name": "held", "content": {"contentType": "text/plain", "sha256": "%x"}}`, sum)
			mustOK(t, c.run(t, "v/ops/core/write", `{"path": "w/held", "value": `+held+`}`))
			for _, ref := range []string{didURL, "w/pins/ref", "/a/" + bare, "w/held"} {
				if r := c.do(t, "GET", "/api/v1/assets/"+ref+"/content", nil); r.status != 200 || string(r.body) != string(content) {
					t.Fatalf("%s: %d %q", ref, r.status, r.body)
				}
			}
			if r := c.do(t, "GET", "/api/v1/assets/w/inline/content", nil); r.status != 404 || !strings.Contains(r.errorText(t), "does not specify any content object") {
				t.Fatalf("content of metadata without any: %d %s", r.status, r.body)
			}
			if r := c.do(t, "PUT", "/api/v1/assets/"+didURL+"/content", content); r.status != 200 || string(r.body) != `"0x`+hex.EncodeToString(sum[:])+`"` {
				t.Fatalf("PUT by DID URL: %d %s", r.status, r.body)
			}
		})
		t.Run("a catalog entry by the asset id the catalog lists", func(t *testing.T) {
			var op struct {
				Asset    string
				Metadata json.RawMessage
			}
			c.do(t, "GET", "/api/v1/operations/v/ops/core/read", nil).json(t, &op)
			hexID := strings.TrimPrefix(op.Asset, "0x")
			for _, ref := range []string{op.Asset, hexID, "a/" + hexID, st.DID + "/a/" + hexID} {
				if r := c.do(t, "GET", "/api/v1/assets/"+ref, nil); r.status != 200 || !jsonSame(r.body, op.Metadata) {
					t.Fatalf("GET /assets/%s: %d %s, want the catalog's metadata %s", ref, r.status, r.body, op.Metadata)
				}
				r := c.run(t, ref, `{"path": "w/inline/name"}`)
				if r.status != 200 || !strings.Contains(string(r.body), `"inline"`) {
					t.Fatalf("run %s: %d %s", ref, r.status, r.body)
				}
			}
			var read struct{ Value string }
			c.do(t, "GET", "/api/v1/values/read?path=a/"+hexID+"/operation/adapter", nil).json(t, &read)
			if read.Value != "core:read" {
				t.Fatalf("values/read of a/%s/operation/adapter = %q", hexID, read.Value)
			}
			if r := c.do(t, "GET", "/api/v1/assets/"+op.Asset+"/content", nil); r.status != 404 || !strings.Contains(r.errorText(t), "content") {
				t.Fatalf("content of a catalog entry: %d %s", r.status, r.body)
			}
		})
		t.Run("an operation by the venue's DID URL", func(t *testing.T) {
			for _, ref := range []string{st.DID + "/v/ops/core/read", url.PathEscape(st.DID + "/v/ops/core/read"), "v/ops/core/read", "/v/ops/core/read"} {
				var op struct{ Path string }
				r := c.do(t, "GET", "/api/v1/operations/"+ref, nil)
				if r.json(t, &op); r.status != 200 || op.Path != "v/ops/core/read" {
					t.Fatalf("%s: %d %s", ref, r.status, r.body)
				}
			}
		})
	})
}

// TestREST_ErrorsQuoteAsWritten: an error on the content routes quotes a
// reference as Huma's errors on the other routes do, '<' as '<'.
func TestREST_ErrorsQuoteAsWritten(t *testing.T) {
	c := newClient(MustRunMain(t, ""))
	for _, path := range []string{"/api/v1/assets/w%2F%3Cx%3E/content", "/api/v1/assets/w%2F%3Cx%3E"} {
		r := c.do(t, "GET", path, nil)
		if r.status != 404 || !strings.Contains(string(r.body), "w/<x>") {
			t.Errorf("GET %s: %d %s, want 404 quoting w/<x>", path, r.status, r.body)
		}
	}
}
