package main

import (
	"strings"
	"testing"
)

// TestREST_BadInput sends every kind of bad input the foundation names and
// checks each gets a 4xx with a message that says what to fix, that nothing
// was stored, and that the venue keeps serving.
func TestREST_BadInput(t *testing.T) {
	forEachStore(t, func(t *testing.T, c *client, m *Main) {
		hash := strings.Repeat("ab", 32)
		job := strings.Repeat("0", 32)
		for _, tc := range []struct {
			name, method, path string
			body               any
			status             int
			want               string // a substring of the error message
		}{
			{"malformed JSON", "POST", "/api/v1/invoke", `{"operation": `, 400, "Request body is not valid JSON"},
			{"body that is not an object", "POST", "/api/v1/invoke", `[1, 2]`, 400, "expected object"},
			{"missing operation", "POST", "/api/v1/invoke", `{"input": {}}`, 400, "Invoke request requires an 'operation' parameter as a String"},
			{"operation of the wrong type", "POST", "/api/v1/invoke", `{"operation": 42}`, 400, "Invoke request requires an 'operation' parameter as a String"},
			{"empty operation", "POST", "/api/v1/invoke", `{"operation": ""}`, 400, "body.operation"},
			{"unknown field", "POST", "/api/v1/invoke", `{"operation": "v/test/ops/echo", "inputs": {}}`, 400, "inputs"},
			{"display form of an operation", "POST", "/api/v1/invoke", `{"operation": "core:read"}`, 400,
				"Error invoking operation: IllegalArgumentException:Cannot resolve operation: core:read"},
			{"unknown operation", "POST", "/api/v1/invoke", `{"operation": "v/ops/nothing/here"}`, 400, "Cannot resolve operation: v/ops/nothing/here"},
			{"input breaking the schema", "POST", "/api/v1/invoke", `{"operation": "v/test/ops/delay", "input": {"ms": "soon"}}`, 400, "input.ms"},
			{"input missing a required field", "POST", "/api/v1/invoke", `{"operation": "v/test/ops/delay", "input": {}}`, 400, "missing property 'ms'"},
			{"bad wait", "POST", "/api/v1/invoke", `{"operation": "v/test/ops/echo", "wait": "soon"}`, 400, "Invalid wait value"},
			{"negative wait", "POST", "/api/v1/invoke", `{"operation": "v/test/ops/echo", "wait": -5}`, 400, "Invalid wait value"},
			{"negative wait past 64 bits", "POST", "/api/v1/invoke?wait=-99999999999999999999", `{"operation": "v/test/ops/echo"}`, 400, "Invalid wait value"},
			{"wait of the wrong kind", "POST", "/api/v1/invoke", `{"operation": "v/test/ops/echo", "wait": {}}`, 400,
				"Invalid wait value {}: use true, false or a whole number of milliseconds"},
			{"input over a maximum", "POST", "/api/v1/invoke", `{"operation": "v/test/ops/delay", "input": {"ms": 1000000000000}}`, 400,
				"input.ms: maximum: got 1000000000000, want 600000"},
			{"input breaking a pattern", "POST", "/api/v1/invoke", `{"operation": "v/test/ops/reveal", "input": {"secret": "tok-` + strings.Repeat("x", 100) + `"}}`, 400,
				"input.secret: does not match pattern '^s/'"},
			{"oversized body", "POST", "/api/v1/invoke", `{"operation": "v/test/ops/echo", "input": {"x": "` + strings.Repeat("x", 2<<20) + `"}}`, 413, "too large"},
			{"input with a number past a double", "POST", "/api/v1/invoke", `{"operation": "v/test/ops/echo", "input": {"n": [1, -1e999]}}`, 400,
				"Input has the number -1e999, past the largest a double holds"},
			{"input with half a surrogate pair", "POST", "/api/v1/run", `{"operation": "v/test/ops/echo", "input": {"s": "ab\udc00"}}`, 400,
				"Input has half of a UTF-16 surrogate pair escaped without the other half"},
			{"a value to write with a number past a double", "POST", "/api/v1/run", `{"operation": "v/ops/core/write", "input": {"path": "w/n", "value": 2E+400}}`, 400,
				"Input has the number 2E+400"},
			{"run without operation", "POST", "/api/v1/run", `{}`, 400, "Run request requires an 'operation' parameter as a String"},
			{"malformed job id", "GET", "/api/v1/jobs/xyz", nil, 400, "Invalid job id"},
			{"unknown job", "GET", "/api/v1/jobs/" + job, nil, 404, "Job not found"},
			{"cancel an unknown job", "PUT", "/api/v1/jobs/" + job + "/cancel", nil, 404, "Job not found"},
			{"pause an unknown job", "PUT", "/api/v1/jobs/" + job + "/pause", nil, 404, "Job not found"},
			{"resume an unknown job", "PUT", "/api/v1/jobs/" + job + "/resume", nil, 404, "Job not found"},
			{"delete an unknown job", "PUT", "/api/v1/jobs/" + job + "/delete", nil, 404, "Job not found"},
			{"reply to an unknown job", "POST", "/api/v1/jobs/" + job, `{"a": 1}`, 404, "Job not found"},
			{"stream an unknown job", "GET", "/api/v1/jobs/" + job + "/sse", nil, 404, "Job not found"},
			{"jobs limit too large", "GET", "/api/v1/jobs?limit=5000", nil, 400, "limit"},
			{"jobs offset negative", "GET", "/api/v1/jobs?offset=-1", nil, 400, "offset"},
			{"jobs offset not a number", "GET", "/api/v1/jobs?offset=two", nil, 400, "offset"},
			{"assets limit too large", "GET", "/api/v1/assets?limit=1001", nil, 400, "limit"},
			{"assets limit not a number", "GET", "/api/v1/assets?limit=x", nil, 400, "limit"},
			{"assets offset negative", "GET", "/api/v1/assets?offset=-3", nil, 400, "offset"},
			{"asset metadata not an object", "POST", "/api/v1/assets", `"just a string"`, 400, "expected object"},
			{"asset metadata malformed", "POST", "/api/v1/assets", `{"name": `, 400, "not valid JSON"},
			{"asset content hash malformed", "POST", "/api/v1/assets", `{"content": {"sha256": "nothex"}}`, 400, "sha256"},
			{"asset content type without a subtype", "POST", "/api/v1/assets", `{"content": {"sha256": "` + hash + `", "contentType": "nonsense"}}`, 400,
				`content.contentType "nonsense" names no type and subtype: give a media type such as "text/plain"`},
			{"asset content type with an empty subtype", "POST", "/api/v1/assets", `{"content": {"sha256": "` + hash + `", "contentType": "text/"}}`, 400, "media type"},
			{"malformed asset id", "GET", "/api/v1/assets/42322", nil, 400, "Invalid asset ID"},
			{"unknown asset", "GET", "/api/v1/assets/0x" + hash, nil, 404, "Asset not found: 0x" + hash},
			{"unknown asset content", "GET", "/api/v1/assets/" + hash + "/content", nil, 404, "Asset not found"},
			{"content for an unknown asset", "PUT", "/api/v1/assets/" + hash + "/content", "bytes", 404, "register its metadata as an asset first"},
			{"values read without path", "GET", "/api/v1/values/read", nil, 400, "path"},
			{"values read with ..", "GET", "/api/v1/values/read?path=w/../s", nil, 400, "may not step up"},
			{"values read with an empty segment", "GET", "/api/v1/values/read?path=w//x", nil, 400, "empty segment"},
			{"values read with a trailing slash", "GET", "/api/v1/values/read?path=w/x/", nil, 400, "empty segment"},
			{"values read under something that is not a DID", "GET", "/api/v1/values/read?path=did:key:/w", nil, 400, `begins with "did:key:", which is not a DID`},
			{"values read with an unknown namespace", "GET", "/api/v1/values/read?path=zz/x", nil, 400, "unknown namespace"},
			{"a query with a bad escape", "GET", "/api/v1/values/read?path=%zz", nil, 400, `The query string is not valid: "%zz"; write a literal % as %25`},
			{"a path given twice to read", "GET", "/api/v1/values/read?path=w/a&path=v/info", nil, 400, `Query parameter "path" is given more than once, and this endpoint reads one: give it once`},
			{"asset metadata with a number past a double", "POST", "/api/v1/assets", `{"a": 1e999999}`, 400, "a number out of the range JSON numbers have here"},
			{"values slice with a bad limit", "GET", "/api/v1/values/slice?path=j&limit=-1", nil, 400, "limit"},
			{"values slice with a huge limit", "GET", "/api/v1/values/slice?path=j&limit=100000", nil, 400, "limit"},
			{"secret with a bad name", "PUT", "/api/v1/secrets/bad%20name", `"v"`, 400, "Invalid secret name"},
			{"secret name with a slash", "PUT", "/api/v1/secrets/a/b", `"v"`, 400, `Invalid secret name "a/b": use 1 to 128 letters, digits`},
			{"delete a secret name with a slash", "DELETE", "/api/v1/secrets/a/b", nil, 400, `Invalid secret name "a/b"`},
			{"secret body of the wrong type", "PUT", "/api/v1/secrets/GOOD", `42`, 400, "'value' string field"},
			{"secret body object without value", "PUT", "/api/v1/secrets/GOOD", `{"val": "xxxx"}`, 400, `body.val: unexpected property; send the secret as a JSON string or as {"value": "..."}`},
			{"secret body with a member besides value", "PUT", "/api/v1/secrets/GOOD", `{"value": "xxxx", "scope": "all", "note": "n"}`, 400, "body.note: unexpected property"},
			{"secret body object with a null value", "PUT", "/api/v1/secrets/GOOD", `{"value": null}`, 400, "'value' string field"},
			{"a secret with half a surrogate pair", "PUT", "/api/v1/secrets/GOOD", `{"value": "\ud800abcd"}`, 400, "half of a UTF-16 surrogate pair"},
			{"a secret as a string with half a pair", "PUT", "/api/v1/secrets/GOOD", `"abcd\udfff"`, 400, "half of a UTF-16 surrogate pair"},
			{"secret body malformed", "PUT", "/api/v1/secrets/GOOD", `{"value": `, 400, "not valid JSON"},
			{"secret too short to mask", "PUT", "/api/v1/secrets/GOOD", `"abc"`, 400, "at least 4 characters: shorter values cannot be masked reliably in job records"},
			{"empty secret", "PUT", "/api/v1/secrets/GOOD", `{"value": ""}`, 400, "at least 4 characters"},
			{"no body for a secret", "PUT", "/api/v1/secrets/GOOD", ``, 400, `The request body is empty: send the secret as a JSON string, or as {"value": "..."}`},
			{"no body for an invoke", "POST", "/api/v1/invoke", ``, 400, `The request body is empty: send {"operation": "<reference`},
			{"no body for a run", "POST", "/api/v1/run", ``, 400, `The request body is empty: send {"operation": "<reference`},
			{"no body for an asset", "POST", "/api/v1/assets", ``, 400, "The request body is empty: send the asset's metadata as a JSON object"},
			{"no body for a reply", "POST", "/api/v1/jobs/0x0123456789abcdef0123456789abcdef", ``, 400, "The request body is empty: send the message for the job as JSON"},
			{"delete an unknown secret", "DELETE", "/api/v1/secrets/NOPE", nil, 404, "Secret not found"},
			{"unknown operation by name", "GET", "/api/v1/operations/core:nope", nil, 404, "Operation not found"},
			{"operation name with a dot-dot segment", "GET", "/api/v1/operations/v/ops/core/../core/read", nil, 400, "has a '.' or '..' segment"},
			{"operation name with an escaped dot-dot segment", "GET", "/api/v1/operations/v%2fops%2f%2e%2e%2fx", nil, 400, "has a '.' or '..' segment"},
			{"unknown route", "GET", "/api/v1/nothing", nil, 404, "Endpoint GET /api/v1/nothing not found"},
			{"wrong method", "DELETE", "/api/v1/status", nil, 405, "DELETE /api/v1/status not allowed"},
			{"doubled slash", "GET", "/api/v1//status", nil, 400, "Path /api/v1//status has an empty or dot segment"},
			{"dot-dot segment", "GET", "/api/v1/jobs/../status", nil, 400, "has an empty or dot segment"},
			{"dot segment", "GET", "/api/./v1/status", nil, 400, "has an empty or dot segment"},
			{"doubled slash beside the API", "POST", "//mcp", `{}`, 400, "has an empty or dot segment"},
			{"SSE with a non-SSE Accept", "GET", "/api/v1/jobs/" + job + "/sse", nil, 406, "text/event-stream"},
			{"a compressed body", "POST", "/api/v1/invoke", "\x1f\x8b\x08\x00", 415, `Content-Encoding "gzip" is not supported: send the body uncompressed`},
		} {
			t.Run(tc.name, func(t *testing.T) {
				var header []string
				if strings.HasSuffix(tc.path, "/sse") && tc.status == 406 {
					header = []string{"Accept", "application/json"}
				}
				if tc.status == 415 {
					header = []string{"Content-Encoding", "gzip"}
				}
				r := c.do(t, tc.method, tc.path, tc.body, header...)
				msg := r.errorText(t)
				if r.status != tc.status || !strings.Contains(msg, tc.want) {
					t.Fatalf("%s %s: %d %q, want %d with %q", tc.method, tc.path, r.status, msg, tc.status, tc.want)
				}
				if strings.Contains(msg, strings.Repeat("x", 100)) {
					t.Fatal("the error echoes the offending value")
				}
			})
		}
		t.Run("nothing was recorded and the venue still serves", func(t *testing.T) {
			var ids []string
			c.do(t, "GET", "/api/v1/jobs", nil).json(t, &ids)
			if len(ids) != 0 {
				t.Fatalf("bad requests left jobs: %v", ids)
			}
			if r := c.do(t, "GET", "/api/v1/status", nil); r.status != 200 {
				t.Fatalf("status %d", r.status)
			}
		})
	})
}

// TestREST_BodiesAsSent checks what the JSON bodies' bytes and types may
// be: UTF-8 only (encoding/json would keep other bytes in raw JSON and
// change them in strings), a JSON media type in any spelling, and no
// member that encoding/json would resolve silently (a name given twice, a
// name in other letter case).
func TestREST_BodiesAsSent(t *testing.T) {
	m := MustRunMain(t, "")
	c := newClient(m)
	notUTF8 := "not UTF-8 (byte "
	for _, tc := range []struct {
		name, method, path, body, ctype string
		status                          int
		want                            string
	}{
		{"invoke input not UTF-8", "POST", "/api/v1/invoke", "{\"operation\": \"v/test/ops/echo\", \"input\": {\"a\": \"\xff\xfe\"}}", "application/json", 400, notUTF8 + "49)"},
		{"run input not UTF-8", "POST", "/api/v1/run", "{\"operation\": \"v/test/ops/echo\", \"input\": {\"a\": \"x\x80\"}}", "application/json", 400, notUTF8},
		{"asset metadata not UTF-8", "POST", "/api/v1/assets", "{\"name\": \"caf\xe9\"}", "application/json", 400, notUTF8 + "13)"},
		{"secret not UTF-8", "PUT", "/api/v1/secrets/LATIN1", "\"pass\xe9word\"", "application/json", 400, notUTF8},
		{"secret named content, not UTF-8", "PUT", "/api/v1/secrets/content", "\"pass\xe9word\"", "application/json", 400, notUTF8},
		{"secret named content, sent as curl -d sends it", "PUT", "/api/v1/secrets/content", `"value-1234"`, "application/x-www-form-urlencoded", 200, ""},
		{"a byte-order mark", "POST", "/api/v1/invoke", "\xef\xbb\xbf{\"operation\": \"v/test/ops/echo\"}", "application/json", 400,
			"=Request body is not valid JSON: it begins with a byte-order mark (EF BB BF); send the JSON without it"},
		{"a byte-order mark before a secret", "PUT", "/api/v1/secrets/BOM", "\xef\xbb\xbf\"value-1234\"", "application/json", 400,
			"=Request body is not valid JSON: it begins with a byte-order mark (EF BB BF); send the JSON without it"},
		{"a reply not UTF-8, worded once", "POST", "/api/v1/jobs/0x" + strings.Repeat("0", 32), "{\"a\": \"\xff\"}", "application/json", 400,
			"=Request body is not valid JSON: it is not UTF-8 (byte 7); send JSON encoded as UTF-8"},
		{"JSON type in capitals", "POST", "/api/v1/assets", `{"name": "capitals"}`, "APPLICATION/JSON", 201, ""},
		{"JSON type with a space and a charset", "PUT", "/api/v1/secrets/SPACED", `"value-1234"`, "application/json ; charset=utf-8", 200, ""},
		{"a +json type", "POST", "/api/v1/assets", `{"name": "plus"}`, "application/vnd.example+json", 201, ""},
		{"a type that is not JSON", "POST", "/api/v1/assets", `{"name": "xml"}`, "text/xml", 400, "unknown content type: text/xml; send the body as application/json"},
		{"an invoke of a type that is not JSON", "POST", "/api/v1/invoke", `{"operation": "v/test/ops/echo"}`, "application/xml", 400,
			"=Invalid request: unknown content type: application/xml; send the body as application/json"},
		{"a run of a type that is not JSON", "POST", "/api/v1/run", `{"operation": "v/test/ops/echo"}`, "application/octet-stream", 400,
			"=Invalid request: unknown content type: application/octet-stream; send the body as application/json"},
		{"operation given twice", "POST", "/api/v1/invoke", `{"operation": "v/test/ops/echo", "operation": "v/test/ops/error"}`, "application/json", 400,
			"body.operation: given more than once"},
		{"an input member given twice", "POST", "/api/v1/invoke", `{"operation": "v/test/ops/echo", "input": {"a": {"b": 1, "\u0062": 2}}}`, "application/json", 400,
			`Input gives the member "b" twice in one object`},
		{"a value to write with a member given twice", "POST", "/api/v1/run", `{"operation": "v/ops/core/write", "input": {"path": "w/dk", "value": {"a": 1, "a": {"x": 2}}}}`,
			"application/json", 400, `Input gives the member "a" twice`},
		{"operation in capitals", "POST", "/api/v1/invoke", `{"OPERATION": "v/test/ops/echo"}`, "application/json", 400,
			"body.OPERATION: unexpected property; names are case-sensitive: write operation"},
		{"secret value given twice", "PUT", "/api/v1/secrets/TWICE", `{"value": "first-1234", "value": "second-1234"}`, "application/json", 400,
			"body.value: given more than once"},
		{"secret value in capitals", "PUT", "/api/v1/secrets/CASE", `{"VALUE": "value-1234"}`, "application/json", 400, "write value"},
		{"secret value null", "PUT", "/api/v1/secrets/NULL", `null`, "application/json", 400, "must contain a 'value' string field, or be a JSON string"},
		{"asset content with a field of its own", "POST", "/api/v1/assets", `{"name": "g", "content": {"sha256": "` + strings.Repeat("ab", 32) + `", "size": 13}}`,
			"application/json", 201, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := c.do(t, tc.method, tc.path, tc.body, "Content-Type", tc.ctype)
			whole, exact := strings.CutPrefix(tc.want, "=") // "=": the whole message
			if r.status != tc.status || exact && r.errorText(t) != whole || !exact && tc.want != "" && !strings.Contains(r.errorText(t), tc.want) {
				t.Fatalf("%d %s, want %d with %q", r.status, r.body, tc.status, tc.want)
			}
		})
	}
	t.Run("nothing refused was stored", func(t *testing.T) {
		var secrets struct{ Items []string }
		c.do(t, "GET", "/api/v1/secrets", nil).json(t, &secrets)
		if strings.Join(secrets.Items, ",") != "SPACED,content" {
			t.Fatalf("secrets %v", secrets.Items)
		}
		var ids []string
		c.do(t, "GET", "/api/v1/jobs", nil).json(t, &ids)
		if len(ids) != 0 {
			t.Fatalf("jobs %v", ids)
		}
	})
}
