package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	venue "github.com/gridvenue/venue"
)

func TestREST_Assets(t *testing.T) {
	forEachStore(t, func(t *testing.T, c *client, m *Main) {
		content := []byte("hello, venue\n")
		sum := sha256.Sum256(content)
		meta := fmt.Sprintf(`{"name": "greeting",  "content": {"contentType": "text/plain", "sha256": "%s", "fileName": "hi.txt"}}`, hex.EncodeToString(sum[:]))
		r := c.do(t, "POST", "/api/v1/assets", meta)
		var id string
		r.json(t, &id)
		if r.status != 201 || !strings.HasPrefix(id, "0x") || len(id) != 66 || r.header.Get("Location") != "/api/v1/assets/"+id {
			t.Fatalf("%d %s %v", r.status, r.body, r.header)
		}
		for _, ref := range []string{id, strings.TrimPrefix(id, "0x"), "a/" + strings.TrimPrefix(id, "0x")} {
			t.Run("metadata is returned byte for byte via "+ref[:2], func(t *testing.T) {
				if r := c.do(t, "GET", "/api/v1/assets/"+ref, nil); r.status != 200 || string(r.body) != meta {
					t.Fatalf("%d %q", r.status, r.body)
				}
			})
		}
		t.Run("metadata has an ETag, and If-None-Match makes it 304", func(t *testing.T) {
			metaSum := sha256.Sum256([]byte(meta))
			etag := `"0x` + hex.EncodeToString(metaSum[:]) + `"`
			if r := c.do(t, "GET", "/api/v1/assets/"+id, nil); r.header.Get("ETag") != etag {
				t.Fatalf("ETag %q, want %q", r.header.Get("ETag"), etag)
			}
			req, _ := http.NewRequest("GET", c.base+"/api/v1/assets/"+id, nil)
			req.Header["If-None-Match"] = []string{`"0x00"`, etag} // two lines
			resp, err := c.http.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != 304 || resp.Header.Get("ETag") != etag {
				t.Fatalf("%d %v", resp.StatusCode, resp.Header)
			}
			if r := c.do(t, "GET", "/api/v1/assets/"+id, nil, "If-None-Match", `"0x00"`); r.status != 200 || string(r.body) != meta {
				t.Fatalf("another ETag: %d %q", r.status, r.body)
			}
		})
		t.Run("a hash mismatch is refused and stores nothing", func(t *testing.T) {
			r := c.do(t, "PUT", "/api/v1/assets/"+id+"/content", []byte("tampered"))
			if r.status != 400 || !strings.Contains(r.errorText(t), "Content hash mismatch") {
				t.Fatalf("%d %s", r.status, r.body)
			}
			if r := c.do(t, "GET", "/api/v1/assets/"+id+"/content", nil); r.status != 404 {
				t.Fatalf("content after a mismatch: %d", r.status)
			}
		})
		t.Run("content uploads and downloads", func(t *testing.T) {
			r := c.do(t, "PUT", "/api/v1/assets/"+id+"/content", content)
			if r.status != 200 || string(r.body) != `"0x`+hex.EncodeToString(sum[:])+`"` {
				t.Fatalf("%d %s", r.status, r.body)
			}
			r = c.do(t, "GET", "/api/v1/assets/"+id+"/content?inline=true", nil)
			if r.status != 200 || string(r.body) != string(content) || r.header.Get("Content-Type") != "text/plain" ||
				r.header.Get("Content-Disposition") != `inline; filename=hi.txt` {
				t.Fatalf("%d %q %v", r.status, r.body, r.header)
			}
			for query, want := range map[string]string{"": "attachment", "?inline": "inline", "?inline=0": "attachment", "?inline=false": "attachment"} {
				r = c.do(t, "GET", "/api/v1/assets/"+id+"/content"+query, nil)
				if d := r.header.Get("Content-Disposition"); r.status != 200 || !strings.HasPrefix(d, want+";") {
					t.Fatalf("%s: %d, Content-Disposition %q, want %s", query, r.status, d, want)
				}
			}
			if r = c.do(t, "GET", "/api/v1/assets/"+id+"/content?inline=maybe", nil); r.status != 400 || !strings.Contains(r.errorText(t), "inline must be true or false") {
				t.Fatalf("inline=maybe: %d %s", r.status, r.body)
			}
		})
		t.Run("the list pages", func(t *testing.T) {
			c.do(t, "POST", "/api/v1/assets", `{"name": "second"}`)
			var page struct {
				Total, Offset, Limit int
				Items                []string
			}
			c.do(t, "GET", "/api/v1/assets?offset=1&limit=1", nil).json(t, &page)
			if page.Total != 2 || len(page.Items) != 1 || page.Offset != 1 || page.Limit != 1 {
				t.Fatalf("%+v", page)
			}
		})
		t.Run("the asset's DID document", func(t *testing.T) {
			r := c.do(t, "GET", "/a/"+id+"/did.json", nil)
			if r.status != 200 || !strings.Contains(string(r.body), `"id":"did:web:`) {
				t.Fatalf("%d %s", r.status, r.body)
			}
		})
	})
}

func TestREST_Secrets(t *testing.T) {
	forEachStore(t, func(t *testing.T, c *client, m *Main) {
		for _, body := range []string{`"sk-live-1234567890"`, `{"value": "sk-live-1234567890"}`} {
			if r := c.do(t, "PUT", "/api/v1/secrets/API_KEY", body); r.status != 200 || string(r.body) != "{\"name\":\"API_KEY\",\"stored\":true}\n" {
				t.Fatalf("put %s: %d %s", body, r.status, r.body)
			}
		}
		var list struct {
			Items []string
			Total int
		}
		c.do(t, "GET", "/api/v1/secrets", nil).json(t, &list)
		if list.Total != 1 || list.Items[0] != "API_KEY" {
			t.Fatalf("%+v", list)
		}
		r := c.do(t, "POST", "/api/v1/invoke", `{"operation": "v/test/ops/reveal", "input": {"secret": "s/API_KEY"}, "wait": true}`)
		if strings.Contains(string(r.body), "sk-live") {
			t.Fatalf("a secret value reached a response: %s", r.body)
		}
		r = c.do(t, "POST", "/api/v1/invoke", `{"operation": "v/ops/secret/set", "input": {"key": "OTHER", "value": "sk-live-abcdef"}, "wait": true}`)
		if r.status != 201 || strings.Contains(string(r.body), "sk-live") || !strings.Contains(string(r.body), `"value":"HIDDEN"`) {
			t.Fatalf("secret:set record: %s", r.body)
		}
		for _, s := range []struct {
			path   string
			status int
		}{{"/api/v1/secrets/API_KEY", 200}, {"/api/v1/secrets/API_KEY", 404}} {
			if r := c.do(t, "DELETE", s.path, nil); r.status != s.status {
				t.Fatalf("delete: %d %s", r.status, r.body)
			}
		}
	})
}

func TestREST_Values(t *testing.T) {
	forEachStore(t, func(t *testing.T, c *client, m *Main) {
		job := invokeJob(t, c, `{"operation": "v/test/ops/echo", "input": {"n": 7}, "wait": true}`)
		for _, tc := range []struct{ name, query, want string }{
			{"the catalog", "/api/v1/values/read?path=v/ops", `"secret"`},
			{"venue info", "/api/v1/values/read?path=v/info/did", `"value":"did:web:`},
			{"a job", "/api/v1/values/read?path=j/" + job.ID + "/output", `"value":{"n":7}`},
			{"an absent path", "/api/v1/values/read?path=w/nothing", `{"exists":false,"value":null,"valueBytes":0}`},
			{"a page of jobs", "/api/v1/values/slice?path=j&offset=0&limit=1", `"count":1`},
			{"a page of the catalog", "/api/v1/values/slice?path=v/ops&limit=1", `{"key":"agent"`},
		} {
			t.Run(tc.name, func(t *testing.T) {
				r := c.do(t, "GET", tc.query, nil)
				if r.status != 200 || !strings.Contains(string(r.body), tc.want) || r.header.Get("Cache-Control") != "private, no-store" {
					t.Fatalf("%d %s, want %s", r.status, r.body, tc.want)
				}
			})
		}
	})
}

// TestREST_SecretsBounded: past venue.MaxSecrets a new secret is refused
// with 409 over REST and from secret:set, and the list stays whole.
func TestREST_SecretsBounded(t *testing.T) {
	t.Parallel() // long, and free of timing: it runs beside the other parallel tests
	m := MustRunMain(t, "")
	c := newClient(m)
	// Eight at a time: the bound holds for puts that race each other, and
	// a thousand in turn took 21 s under -race.
	var wg sync.WaitGroup
	var next atomic.Int64
	for range 8 {
		wg.Go(func() {
			for i := next.Add(1) - 1; i < venue.MaxSecrets; i = next.Add(1) - 1 {
				if r := c.do(t, "PUT", fmt.Sprintf("/api/v1/secrets/KEY_%04d", i), `"sk-live-1234567890"`); r.status != 200 {
					t.Errorf("secret %d: %d %s", i, r.status, r.body)
				}
			}
		})
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	r := c.do(t, "PUT", "/api/v1/secrets/ONE_MORE", `"sk-live-1234567890"`)
	if r.status != http.StatusConflict || !strings.Contains(r.errorText(t), "You keep 1000 secrets, the most a user may") {
		t.Fatalf("past the bound: %d %s", r.status, r.body)
	}
	r = c.do(t, "POST", "/api/v1/invoke", `{"operation": "v/ops/secret/set", "input": {"key": "ONE_MORE", "value": "sk-live-abcdef"}, "wait": true}`)
	if !strings.Contains(string(r.body), `"status":"FAILED"`) || !strings.Contains(string(r.body), "the most a user may") {
		t.Fatalf("secret:set past the bound: %d %s", r.status, r.body)
	}
	if r := c.do(t, "PUT", "/api/v1/secrets/KEY_0000", `"sk-live-0987654321"`); r.status != 200 {
		t.Fatalf("replacing one: %d %s", r.status, r.body)
	}
	var list struct{ Total int }
	if c.do(t, "GET", "/api/v1/secrets", nil).json(t, &list); list.Total != venue.MaxSecrets {
		t.Fatalf("%d listed", list.Total)
	}
}

// TestREST_UserValuesBounded: a write through the core operations that
// would take a user's values past maxUserValuesBytes fails its job with a
// message that says what to do, stores nothing, and leaves other users be;
// deleting makes room again.
func TestREST_UserValuesBounded(t *testing.T) {
	forEachStore(t, func(t *testing.T, _ *client, m *Main) {
		alice, _ := asUser(t, m)
		bob, _ := asUser(t, m)
		text := func(n int) string { return `"` + strings.Repeat("x", n) + `"` }
		write := func(c *client, op, input string) (status, body string) {
			r := c.do(t, "POST", "/api/v1/invoke", `{"operation": "v/ops/core/`+op+`", "input": `+input+`, "wait": true}`)
			var rec struct{ Status, Error string }
			r.json(t, &rec)
			return rec.Status, rec.Error
		}
		for _, step := range []struct {
			name, who, op, input, status, says string
		}{
			{"within the bound", "alice", "write", `{"path": "w/a", "value": [` + text(3000) + `]}`, "COMPLETE", ""},
			{"past it", "alice", "write", `{"path": "w/b", "value": ` + text(2000) + `}`, "FAILED", "over the 4096 bytes one user may store: delete some first"},
			{"an append past it", "alice", "append", `{"path": "w/a", "value": ` + text(2000) + `}`, "FAILED", "one user may store"},
			{"another user's room is their own", "bob", "write", `{"path": "w/b", "value": ` + text(2000) + `}`, "COMPLETE", ""},
			{"a delete makes room", "alice", "delete", `{"path": "w/a"}`, "COMPLETE", ""},
			{"for the write refused before", "alice", "write", `{"path": "w/b", "value": ` + text(2000) + `}`, "COMPLETE", ""},
		} {
			c := alice
			if step.who == "bob" {
				c = bob
			}
			status, msg := write(c, step.op, step.input)
			if status != step.status || !strings.Contains(msg, step.says) {
				t.Fatalf("%s: %s %q, want %s saying %q", step.name, status, msg, step.status, step.says)
			}
		}
		if r := alice.do(t, "GET", "/api/v1/values/read?path=w/a", nil); !strings.Contains(string(r.body), `"exists":false`) {
			t.Fatalf("w/a after its delete: %d %s", r.status, r.body)
		}
	}, func(c *Config) { c.MaxUserValues = 4096 })
}

// TestREST_UserAssetsBounded: metadata and content that would take a user's
// assets past maxUserAssetsBytes are refused with 413 and a message that
// says what to do, and nothing is stored; content stored already costs
// nothing; another user's room is their own.
func TestREST_UserAssetsBounded(t *testing.T) {
	forEachStore(t, func(t *testing.T, _ *client, m *Main) {
		alice, _ := asUser(t, m)
		bob, _ := asUser(t, m)
		register := func(c *client, content []byte, pad int) (string, reply) {
			sum := sha256.Sum256(content)
			var id string
			meta := fmt.Sprintf(`{"description": "%s", "content": {"contentType": "text/plain", "sha256": "%x"}}`, strings.Repeat("d", pad), sum)
			r := c.do(t, "POST", "/api/v1/assets", meta)
			if r.status == http.StatusCreated {
				r.json(t, &id)
			} else if aid, err := venue.AssetIDOf([]byte(meta)); err == nil {
				id = aid.String()
			}
			return id, r
		}
		refused := func(step string, r reply) {
			t.Helper()
			if r.status != http.StatusRequestEntityTooLarge || !strings.Contains(r.errorText(t), "bytes one user may store: ask the venue's operator to raise maxUserAssetsBytes") ||
				!strings.HasPrefix(r.errorText(t), "Cannot ") {
				t.Fatalf("%s: %d %s, want 413 saying what one user may store", step, r.status, r.body)
			}
		}
		one, two, three := bytes.Repeat([]byte("1"), 3000), bytes.Repeat([]byte("2"), 3000), bytes.Repeat([]byte("3"), 3000)
		for _, data := range [][]byte{one, two} {
			id, r := register(alice, data, 0)
			if r.status != http.StatusCreated {
				t.Fatalf("register: %d %s", r.status, r.body)
			}
			mustOK(t, alice.do(t, "PUT", "/api/v1/assets/"+id+"/content", data))
		}
		third, r := register(alice, three, 0)
		if r.status != http.StatusCreated {
			t.Fatalf("register a third: %d %s", r.status, r.body)
		}
		refused("content past the bound", alice.do(t, "PUT", "/api/v1/assets/"+third+"/content", three))
		if r := alice.do(t, "GET", "/api/v1/assets/"+third+"/content", nil); r.status != http.StatusNotFound {
			t.Fatalf("content refused, then read: %d %s", r.status, r.body)
		}
		mustOK(t, bob.do(t, "PUT", "/api/v1/assets/"+third+"/content", three))
		mustOK(t, alice.do(t, "PUT", "/api/v1/assets/"+third+"/content", three)) // stored already: it costs nothing
		big, r := register(alice, []byte("big"), 2000)
		refused("metadata past the bound", r)
		if r := bob.do(t, "GET", "/api/v1/assets/"+big, nil); r.status != http.StatusNotFound {
			t.Fatalf("metadata refused, then read: %d %s", r.status, r.body)
		}
		if _, r := register(bob, []byte("big"), 2000); r.status != http.StatusCreated {
			t.Fatalf("another user's room is their own: %d %s", r.status, r.body)
		}
	}, func(c *Config) { c.MaxContentSize, c.MaxUserAssets = 4096, 8192 })
}

// TestREST_SecretsKeptAsSent: a secret whose JSON escapes half a surrogate
// pair would decode to U+FFFD, another value than the one sent: both ways
// of setting one refuse it, and nothing is stored.
func TestREST_SecretsKeptAsSent(t *testing.T) {
	c := newClient(MustRunMain(t, ""))
	if r := c.do(t, "PUT", "/api/v1/secrets/HALF", `{"value": "\ud800abcd"}`); r.status != http.StatusBadRequest ||
		!strings.Contains(r.errorText(t), "half of a UTF-16 surrogate pair") {
		t.Fatalf("PUT: %d %s", r.status, r.body)
	}
	r := c.run(t, "v/ops/secret/set", `{"name": "HALF", "value": "abcd\udfff"}`)
	if r.status != http.StatusBadRequest || !strings.Contains(r.errorText(t), "Input has half of a UTF-16 surrogate pair escaped without the other half, which JSON readers decode differently: send both halves, or the character itself") {
		t.Fatalf("secret:set: %d %s", r.status, r.body)
	}
	mustOK(t, c.run(t, "v/ops/secret/set", `{"name": "WHOLE", "value": "\ud83d\ude00 and \u00e9"}`))
	if r := c.do(t, "GET", "/api/v1/secrets", nil); !strings.HasPrefix(string(r.body), `{"items":["WHOLE"],"total":1}`) {
		t.Fatalf("stored: %s", r.body)
	}
}

// TestREST_AssetContentRanges resumes and revalidates a download of
// content that spans several of the store's 256 KiB pieces.
func TestREST_AssetContentRanges(t *testing.T) {
	forEachStore(t, func(t *testing.T, c *client, m *Main) {
		content := make([]byte, 600<<10)
		for i := range content {
			content[i] = byte(i * 7 / 3)
		}
		sum := sha256.Sum256(content)
		var id string
		c.do(t, "POST", "/api/v1/assets", `{"name": "big", "content": {"contentType": "application/octet-stream", "sha256": "`+hex.EncodeToString(sum[:])+`"}}`).json(t, &id)
		mustOK(t, c.do(t, "PUT", "/api/v1/assets/"+id+"/content", content))
		path, etag := "/api/v1/assets/"+id+"/content", `"0x`+hex.EncodeToString(sum[:])+`"`
		size := len(content)

		whole := c.do(t, "GET", path, nil)
		if whole.status != 200 || !bytes.Equal(whole.body, content) || whole.header.Get("ETag") != etag || whole.header.Get("Accept-Ranges") != "bytes" {
			t.Fatalf("%d, %d bytes, %v", whole.status, len(whole.body), whole.header)
		}
		for _, tc := range []struct {
			name       string
			header     []string
			status     int
			start, end int // the part of content the body holds, end excluded
		}{
			{"a range across two pieces", []string{"Range", "bytes=262100-262200"}, 206, 262100, 262201},
			{"the rest from an offset", []string{"Range", "bytes=524288-"}, 206, 524288, size},
			{"the last bytes", []string{"Range", "bytes=-10"}, 206, size - 10, size},
			{"a last past the end", []string{"Range", "bytes=614000-999999"}, 206, 614000, size},
			{"several ranges get all of it", []string{"Range", "bytes=0-1,5-6"}, 200, 0, size},
			{"another unit gets all of it", []string{"Range", "lines=1-2"}, 200, 0, size},
			{"If-Range with the ETag", []string{"Range", "bytes=10-19", "If-Range", etag}, 206, 10, 20},
			{"If-Range with another ETag gets all of it", []string{"Range", "bytes=10-19", "If-Range", `"0x00"`}, 200, 0, size},
			{"If-Range with a date gets all of it", []string{"Range", "bytes=10-19", "If-Range", "Sat, 28 Nov 2026 00:00:00 GMT"}, 200, 0, size},
			{"If-None-Match with the ETag", []string{"If-None-Match", `"0x01", ` + etag}, 304, 0, 0},
			{"If-None-Match with the ETag ignores Range", []string{"If-None-Match", "*", "Range", "bytes=0-0"}, 304, 0, 0},
			{"If-None-Match with another ETag", []string{"If-None-Match", `"0x01"`, "Range", "bytes=0-0"}, 206, 0, 1},
		} {
			t.Run(tc.name, func(t *testing.T) {
				r := c.do(t, "GET", path, nil, tc.header...)
				if r.status != tc.status || !bytes.Equal(r.body, content[tc.start:tc.end]) || r.header.Get("ETag") != etag {
					t.Fatalf("%d with %d bytes, %v; want %d with bytes %d to %d", r.status, len(r.body), r.header, tc.status, tc.start, tc.end)
				}
				if want := fmt.Sprintf("bytes %d-%d/%d", tc.start, tc.end-1, size); tc.status == 206 && r.header.Get("Content-Range") != want {
					t.Fatalf("Content-Range %q, want %q", r.header.Get("Content-Range"), want)
				}
			})
		}
		for _, tc := range []struct{ name, field, want string }{
			{"a range past the end", "bytes=614400-", "starts past the end: the content has 614400 bytes"},
			{"a malformed range", "bytes=a-b", "send bytes=first-last, bytes=first- or bytes=-count"},
			{"a range that ends before it starts", "bytes=9-1", "ends before it starts"},
		} {
			t.Run(tc.name+" is 416", func(t *testing.T) {
				r := c.do(t, "GET", path, nil, "Range", tc.field)
				if r.status != 416 || !strings.Contains(r.errorText(t), tc.want) || r.header.Get("Content-Range") != fmt.Sprintf("bytes */%d", size) {
					t.Fatalf("%d %s %v", r.status, r.body, r.header)
				}
			})
		}
		t.Run("HEAD answers a range's header without its body", func(t *testing.T) {
			r := c.do(t, "HEAD", path, nil, "Range", "bytes=100-199")
			if r.status != 206 || len(r.body) != 0 || r.header.Get("Content-Length") != "100" || r.header.Get("Content-Range") != fmt.Sprintf("bytes 100-199/%d", size) {
				t.Fatalf("%d %d bytes %v", r.status, len(r.body), r.header)
			}
		})
	})
}
