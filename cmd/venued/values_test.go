package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// getLines sends a GET with header values given as several lines each, as
// client.do (which sets one line a name) cannot.
func (c *client) getLines(t *testing.T, path string, header http.Header) reply {
	t.Helper()
	req, err := http.NewRequest("GET", c.base+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for name, lines := range header {
		for _, l := range lines {
			req.Header.Add(name, l)
		}
	}
	resp, err := c.http.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return reply{status: resp.StatusCode, header: resp.Header, body: b}
}

// TestREST_ValuesReadETag: a present value read whole has an ETag, and a
// matching If-None-Match, in any of RFC 9110's forms, is 304 with no body.
func TestREST_ValuesReadETag(t *testing.T) {
	forEachStore(t, func(t *testing.T, c *client, m *Main) {
		c.run(t, "v/ops/core/write", `{"path": "w/etag/doc", "value": {"b": [1, 2], "a": "x"}}`)
		first := c.do(t, "GET", "/api/v1/values/read?path=w/etag/doc", nil)
		var res struct{ Value json.RawMessage }
		first.json(t, &res)
		sum := sha256.Sum256(res.Value)
		etag := `"0x` + hex.EncodeToString(sum[:]) + `"`
		if got := first.header.Get("ETag"); got != etag {
			t.Fatalf("ETag %s, want %s (the SHA-256 of %s)", got, etag, res.Value)
		}
		other := `"0x` + strings.Repeat("0", 64) + `"`
		for _, tc := range []struct {
			name, path string
			lines      []string // If-None-Match lines
			status     int
			etag       bool // the answer has an ETag
		}{
			{"no condition", "w/etag/doc", nil, 200, true},
			{"the current tag", "w/etag/doc", []string{etag}, 304, true},
			{"a weak tag compares weakly", "w/etag/doc", []string{"W/" + etag}, 304, true},
			{"a list holding the tag", "w/etag/doc", []string{other + ` , W/"x,y", ` + etag}, 304, true},
			{"the tag on a second line", "w/etag/doc", []string{other, etag}, 304, true},
			{"a star", "w/etag/doc", []string{"*"}, 304, true},
			{"a malformed member does not hide the tag", "w/etag/doc", []string{"junk, " + etag}, 304, true},
			{"another tag", "w/etag/doc", []string{other}, 200, true},
			{"the tag unquoted", "w/etag/doc", []string{strings.Trim(etag, `"`)}, 200, true},
			{"an absent value has no tag, so a star does not match", "w/etag/absent", []string{"*"}, 200, false},
			{"a truncated value has no tag", "w/etag/doc&maxSize=2", []string{"*"}, 200, false},
		} {
			t.Run(tc.name, func(t *testing.T) {
				r := c.getLines(t, "/api/v1/values/read?path="+tc.path, http.Header{"If-None-Match": tc.lines})
				if r.status != tc.status {
					t.Fatalf("status %d %s, want %d", r.status, r.body, tc.status)
				}
				if got := r.header.Get("ETag"); (got == etag) != tc.etag || !tc.etag && got != "" {
					t.Errorf("ETag %q", got)
				}
				if cc := r.header.Get("Cache-Control"); cc != "private, no-store" {
					t.Errorf("Cache-Control %q", cc)
				}
				if tc.status == 304 && len(r.body) != 0 {
					t.Errorf("a 304 with a body: %s", r.body)
				}
			})
		}
		t.Run("a changed value has a new tag", func(t *testing.T) {
			c.run(t, "v/ops/core/write", `{"path": "w/etag/doc", "value": {"b": [1, 2, 3]}}`)
			r := c.getLines(t, "/api/v1/values/read?path=w/etag/doc", http.Header{"If-None-Match": {etag}})
			if r.status != 200 || r.header.Get("ETag") == etag || r.header.Get("ETag") == "" {
				t.Fatalf("status %d, ETag %q after a change", r.status, r.header.Get("ETag"))
			}
		})
	})
}

// TestREST_ValuesCount: count and aggregate answer alike, with groups.
func TestREST_ValuesCount(t *testing.T) {
	forEachStore(t, func(t *testing.T, c *client, m *Main) {
		c.run(t, "v/ops/core/write", `{"path": "w/count/people", "value": {"ada": {"role": "eng"}, "bob": {"role": "ops"}, "cy": {"role": "eng"}, "di": {}, "ed": 7}}`)
		c.run(t, "v/ops/core/write", `{"path": "w/count/list", "value": [{"n": 1}, {"n": 1}, {"n": "1"}, {"m": 2}]}`)
		c.run(t, "v/ops/core/write", `{"path": "w/count/scalar", "value": "text"}`)
		invokeJob(t, c, `{"operation": "v/test/ops/echo", "wait": true}`)
		invokeJob(t, c, `{"operation": "v/test/ops/echo", "wait": true}`)
		for _, tc := range []struct {
			name, query string
			status      int
			want        string // the body, or a substring of the error
		}{
			{"a map counts its keys", "path=w/count/people", 200, `{"exists":true,"count":5}`},
			{"a vector counts its elements", "path=w/count/list", 200, `{"exists":true,"count":4}`},
			{"groupBy with missing fields", "path=w/count/people&groupBy=role", 200,
				`{"exists":true,"count":5,"groups":{"eng":{"count":2},"null":{"count":2},"ops":{"count":1}}}`},
			{"groupBy keys a number by its JSON text", "path=w/count/list&groupBy=n", 200,
				`{"exists":true,"count":4,"groups":{"1":{"count":3},"null":{"count":1}}}`},
			{"an absent path", "path=w/count/none", 200, `{"exists":false}`},
			{"a scalar", "path=w/count/scalar", 200, `{"exists":false}`},
			// Five jobs: the three writes and the two echoes.
			{"j counts the caller's jobs", "path=j", 200, `{"exists":true,"count":5}`},
			{"j grouped by status", "path=j&groupBy=status", 200, `{"exists":true,"count":5,"groups":{"COMPLETE":{"count":5}}}`},
			{"no path", "groupBy=x", 400, "Missing 'path' query parameter"},
			{"a malformed path", "path=w//x", 400, "empty segment"},
			{"a malformed groupBy", "path=w/count/people&groupBy=a//b", 400, "empty field name"},
			{"a groupBy above the entries", "path=w/count/people&groupBy=..", 400, "a '.' or '..' field name"},
			{"a groupBy too long", "path=w/count/people&groupBy=" + strings.Repeat("f", 1025), 400, "groupBy"},
		} {
			for _, endpoint := range []string{"count", "aggregate"} {
				t.Run(endpoint+": "+tc.name, func(t *testing.T) {
					r := c.do(t, "GET", "/api/v1/values/"+endpoint+"?"+tc.query, nil)
					if r.status != tc.status {
						t.Fatalf("status %d %s, want %d", r.status, r.body, tc.status)
					}
					if tc.status != 200 {
						if msg := r.errorText(t); !strings.Contains(msg, tc.want) {
							t.Fatalf("error %q lacks %q", msg, tc.want)
						}
						return
					}
					if got := strings.TrimSpace(string(r.body)); got != tc.want {
						t.Fatalf("body %s, want %s", got, tc.want)
					}
					if cc := r.header.Get("Cache-Control"); cc != "private, no-store" {
						t.Errorf("Cache-Control %q", cc)
					}
				})
			}
		}
	})
}

// TestREST_ValuesInspectAgreesWithCoreInspect: /values/inspect, rendered
// natively, gives the text core:inspect, rendered in the Wasm sandbox,
// gives for the same lattice.
func TestREST_ValuesInspectAgreesWithCoreInspect(t *testing.T) {
	t.Parallel() // long, and free of timing: it runs beside the other parallel tests

	jobCount := regexp.MustCompile(`\d+ keys, \d+ bytes`) // the counts in a preview of j
	doc := `{"name": "Ada Lovelace", "tags": ["x", "y", "z", "w", "v", "u", "t"], "bio": "` + strings.Repeat("Lorem ipsum ", 30) +
		`", "address": {"street": "1 Main St", "city": "London"}, "n": 42, "ok": true, "x": null, "a,b": "comma"}`
	forEachStore(t, func(t *testing.T, c *client, m *Main) {
		c.run(t, "v/ops/core/write", `{"path": "w/inspect/doc", "value": `+doc+`}`)
		c.run(t, "v/ops/core/write", `{"path": "w/inspect/list", "value": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]}`)
		c.run(t, "v/ops/core/write", `{"path": "w/inspect/a,b", "value": "a comma in a path"}`)
		// Two rows of 600 kB assemble to a map too large to read whole,
		// which both describe from its listing.
		for _, k := range []string{"k1", "k2"} {
			c.run(t, "v/ops/core/write", `{"path": "w/big/`+k+`", "value": "`+strings.Repeat("x", 600_000)+`"}`)
		}
		echo := invokeJob(t, c, `{"operation": "v/test/ops/echo", "input": {"hello": "inspect"}, "wait": true}`)
		for _, tc := range []struct {
			name    string
			paths   []string
			budget  int // 0: the default
			compact bool
			given   bool // the budget is given even if 0
		}{
			{"a document in the default budget", []string{"w/inspect/doc"}, 0, false, false},
			{"a document cut to a budget", []string{"w/inspect/doc"}, 150, false, false},
			{"a tiny budget", []string{"w/inspect/doc"}, 10, false, false},
			{"compact", []string{"w/inspect/doc"}, 120, true, false},
			{"a map assembled from rows", []string{"w/inspect"}, 300, false, false},
			{"a map too large to read whole", []string{"w/big"}, 100, false, false},
			{"the caller's jobs, too large to read whole", []string{"j"}, 200, false, false},
			{"a job record", []string{"j/" + echo.ID}, 200, false, false},
			{"an absent path", []string{"w/inspect/none"}, 0, false, false},
			{"a path with a comma", []string{"w/inspect/a,b"}, 0, false, false},
			{"several paths share the budget", []string{"w/inspect/list", "w/inspect/doc", "w/inspect/none"}, 90, false, false},
			{"a path listed again", []string{"w/inspect/doc", "w/inspect/list", "w/inspect/doc"}, 300, false, false},
			{"the caller's jobs listed again", []string{"j", "w/inspect/list", "j", "j"}, 400, false, false},
			{"a budget of 0 is the default", []string{"w/inspect/doc"}, 0, false, true},
			{"a budget under 10 is 10", []string{"w/inspect/doc"}, 5, false, true},
		} {
			t.Run(tc.name, func(t *testing.T) {
				q := url.Values{"path": tc.paths}
				in := map[string]any{"paths": tc.paths, "compact": tc.compact}
				if len(tc.paths) == 1 {
					in["paths"] = tc.paths[0] // the op labels a list's previews, as REST does several paths'
				}
				if tc.budget != 0 || tc.given {
					q.Set("budget", strconv.Itoa(tc.budget))
					in["budget"] = tc.budget
				}
				if tc.compact {
					q.Set("compact", "true")
				}
				var rest struct{ Result string }
				r := c.do(t, "GET", "/api/v1/values/inspect?"+q.Encode(), nil)
				if r.status != 200 {
					t.Fatalf("values/inspect: %d %s", r.status, r.body)
				}
				r.json(t, &rest)
				job := invokeJob(t, c, `{"operation": "v/ops/core/inspect", "wait": true, "input": `+string(mustJSON(in))+`}`)
				out, _ := job.Output.(map[string]any)
				got, _ := out["result"].(string)
				if tc.paths[0] == "j" {
					// The operation's own job may be among the caller's
					// jobs it counts and sizes, once its record is stored.
					got, rest.Result = jobCount.ReplaceAllString(got, "N keys, B bytes"), jobCount.ReplaceAllString(rest.Result, "N keys, B bytes")
				}
				if job.Status != "COMPLETE" || got != rest.Result {
					t.Fatalf("core:inspect %s %v\nvalues/inspect %q", job.Status, job.Output, rest.Result)
				}
				if rest.Result == "" || r.header.Get("Cache-Control") != "private, no-store" {
					t.Fatalf("result %q, Cache-Control %q", rest.Result, r.header.Get("Cache-Control"))
				}
			})
		}
	})
}

func TestREST_ValuesInspectRefuses(t *testing.T) {
	forEachStore(t, func(t *testing.T, c *client, m *Main) {
		for _, tc := range []struct{ name, query, want string }{
			{"no path", "budget=100", "=Missing 'path' query parameter"},
			{"a negative budget", "path=w/x&budget=-1", "budget"},
			{"a budget that is not a number", "path=w/x&budget=lots", "=Invalid integer query parameter 'budget': lots"},
			{"a malformed path", "path=w//x", "empty segment"},
			{"an unknown namespace", "path=w/x&path=q/y", "unknown namespace"},
			{"more than 1000 paths, repeats included", strings.Repeat("path=w/x&", 1001) + "budget=10", "query.path: expected array length <= 1000"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				r := c.do(t, "GET", "/api/v1/values/inspect?"+tc.query, nil)
				if r.status != 400 {
					t.Fatalf("status %d %s, want 400", r.status, r.body)
				}
				// "=" asks for the whole message: the reference's words, unprefixed.
				msg := r.errorText(t)
				if whole, exact := strings.CutPrefix(tc.want, "="); exact && msg != whole || !exact && !strings.Contains(msg, tc.want) {
					t.Fatalf("error %q, want %q", msg, tc.want)
				}
			})
		}
	})
}

// TestREST_ValuesSliceMaxSize: a page of /values/slice is bounded by
// maxSize, as the reference's clients expect, unless it is one entry.
func TestREST_ValuesSliceMaxSize(t *testing.T) {
	forEachStore(t, func(t *testing.T, c *client, m *Main) {
		c.run(t, "v/ops/core/write", `{"path": "w/page", "value": ["`+strings.Repeat("x", 200)+`", "`+strings.Repeat("y", 200)+`"]}`)
		for _, tc := range []struct {
			name, query string
			status      int
		}{
			{"both within the page", "path=w/page&maxSize=1000", 200},
			{"both over it", "path=w/page&maxSize=300", 400},
			{"one entry over it", "path=w/page&limit=1&maxSize=10", 200},
			{"a negative maxSize", "path=w/page&maxSize=-1", 400},
			{"maxSize not a number", "path=w/page&maxSize=big", 400},
		} {
			t.Run(tc.name, func(t *testing.T) {
				r := c.do(t, "GET", "/api/v1/values/slice?"+tc.query, nil)
				if r.status != tc.status {
					t.Fatalf("status %d %s, want %d", r.status, r.body, tc.status)
				}
			})
		}
	})
}

// TestREST_DeepValuesReadAlike: the deepest value a write takes reads back
// whole through /values/read and core:read alike, and when reads of reads
// nest ever deeper (a job's record holds its output), both doors refuse
// the same one with the same message, never one answering and the other
// failing.
func TestREST_DeepValuesReadAlike(t *testing.T) {
	forEachStore(t, func(t *testing.T, c *client, m *Main) {
		deep := strings.Repeat("[", 999) + strings.Repeat("]", 999)
		if r := c.run(t, "v/ops/core/write", `{"path": "w/d", "value": `+deep+`}`); r.status != 200 {
			t.Fatalf("write 999 levels at w/d: %d %s", r.status, r.body)
		}
		if r := c.run(t, "v/ops/core/write", `{"path": "w/e/f", "value": `+deep+`}`); r.status != 400 ||
			!strings.Contains(string(r.body), "more than the 1000 the venue keeps") {
			t.Fatalf("write 999 levels at w/e/f: %d %s", r.status, r.body)
		}
		path := "w"
		for i := 0; ; i++ {
			rest := c.do(t, "GET", "/api/v1/values/read?path="+url.QueryEscape(path), nil)
			job := invokeJob(t, c, `{"operation": "v/ops/core/read", "wait": true, "input": {"path": "`+path+`"}}`)
			if rest.status == 200 {
				if job.Status != "COMPLETE" {
					t.Fatalf("read %d of %s: /values/read answers, core:read %s: %s", i, path, job.Status, job.Error)
				}
				path = "j/" + job.ID // the next read reads this one's record
				continue
			}
			var e struct{ Error string }
			rest.json(t, &e)
			if rest.status != 400 || job.Status == "COMPLETE" || job.Error != e.Error || !strings.Contains(e.Error, "more than a read answers") {
				t.Fatalf("read %d of %s: /values/read %d %q, core:read %s %q", i, path, rest.status, e.Error, job.Status, job.Error)
			}
			if i == 0 {
				t.Fatal("the namespace holding the deepest value written does not read")
			}
			// A page of j holding such a job names it, through both doors.
			rest = c.do(t, "GET", "/api/v1/values/slice?path=j&limit=1000", nil)
			job = invokeJob(t, c, `{"operation": "v/ops/core/slice", "wait": true, "input": {"path": "j", "limit": 1000}}`)
			rest.json(t, &e)
			if rest.status != 400 || job.Error != e.Error || !regexp.MustCompile(`^The entry 0x[0-9a-f]{32} of j nests more than a read answers: page past it \(offset \d+\)`).MatchString(e.Error) {
				t.Fatalf("slice of j: /values/slice %d %q, core:slice %s %q", rest.status, e.Error, job.Status, job.Error)
			}
			return
		}
	})
}

// TestREST_PathsRefusedAlike: paths the REST door refuses are refused by
// the core operations too, with the same code: a lone surrogate escape
// (which would decode to U+FFFD, so that every such escape named one path;
// the invoke door refuses it in any input now) and
// a DID prefix past the path limit (which was quoted whole into a guest's
// error, clipped there, and lost its code).
func TestREST_PathsRefusedAlike(t *testing.T) {
	forEachStore(t, func(t *testing.T, c *client, m *Main) {
		for _, tc := range []struct{ name, rest, op, want string }{
			{"a lone surrogate", "w/s/%ED%A0%80", `"w/s/\ud800"`, "half of a UTF-16 surrogate pair"},
			{"the replacement character", "w/s/%EF%BF%BD", `"w/s/\ud800"`, "half of a UTF-16 surrogate pair"},
			{"a DID of 70000 bytes", "did:key:" + strings.Repeat("A", 70000) + "/w/x", `"did:key:` + strings.Repeat("A", 70000) + `/w/x"`, "too long"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				r := c.do(t, "GET", "/api/v1/values/read?path="+tc.rest, nil)
				if r.status != 400 {
					t.Fatalf("values/read: %d %.200s", r.status, r.body)
				}
				for _, op := range []string{"read", "write"} {
					in := `{"path": ` + tc.op + `, "value": 1}`
					if op == "read" {
						in = `{"path": ` + tc.op + `}`
					}
					if r := c.run(t, "v/ops/core/"+op, in); r.status != 400 {
						t.Fatalf("core:%s: %d %.300s", op, r.status, r.body)
					}
				}
				if r := c.run(t, "v/ops/core/read", `{"path": `+tc.op+`}`); !strings.Contains(string(r.body), tc.want) {
					t.Fatalf("core:read says %.300s", r.body)
				}
			})
		}
	})
}

// TestREST_ValuesListFields: fields=a,b/c adds each listed key's values at
// those paths, as the reference's clients ask for a table of a map.
func TestREST_ValuesListFields(t *testing.T) {
	forEachStore(t, func(t *testing.T, c *client, m *Main) {
		c.run(t, "v/ops/core/write", `{"path": "w/people/ada", "value": {"name": "Ada", "meta": {"born": 1815}}}`)
		c.run(t, "v/ops/core/write", `{"path": "w/people/bob", "value": {"name": "Bob"}}`)
		r := c.do(t, "GET", "/api/v1/values/list?path=w/people&fields=name,meta/born", nil)
		want := `{"exists":true,"type":"Map","count":2,"keys":["ada","bob"],"offset":0,"values":{` +
			`"ada":{"meta/born":{"exists":true,"value":1815},"name":{"exists":true,"value":"Ada"}},` +
			`"bob":{"meta/born":{"exists":false,"value":null},"name":{"exists":true,"value":"Bob"}}}}`
		if r.status != 200 || strings.TrimSpace(string(r.body)) != want {
			t.Fatalf("list with fields: %d %s", r.status, r.body)
		}
		job := invokeJob(t, c, `{"operation": "v/test/ops/echo", "input": {"x": 1}, "wait": true}`)
		r = c.do(t, "GET", "/api/v1/values/list?path=j&fields=status", nil)
		if r.status != 200 || !strings.Contains(string(r.body), `"`+job.ID+`":{"status":{"exists":true,"value":"COMPLETE"}}`) {
			t.Fatalf("list of j with fields: %d %s", r.status, r.body)
		}
		for _, tc := range []struct{ name, query, want string }{
			{"seventeen fields", "path=w/people&fields=" + strings.Repeat("a,", 16) + "a", "At most 16 fields"},
			{"a field stepping up", "path=w/people&fields=../x", "is not a path below each key"},
			{"an empty field", "path=w/people&fields=name,", "is not a path below each key"},
			{"a map it is not", "path=w/people/ada/name&fields=x", "'fields' needs a map"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				r := c.do(t, "GET", "/api/v1/values/list?"+tc.query, nil)
				if r.status != 400 || !strings.Contains(string(r.body), tc.want) {
					t.Fatalf("%d %s", r.status, r.body)
				}
			})
		}
	})
}
