package ops

import (
	"encoding/json"
	"strings"
	"testing"

	venue "github.com/gridvenue/venue"
)

func TestGuest_Schema(t *testing.T) {
	runCases(t, []guestCase{
		{name: "infer an object", op: "v/ops/schema/infer",
			in: `{"value":{"name":"Ada","age":36,"score":9.5,"tags":["a","b"],"ok":true,"none":null}}`,
			want: `{"schema":{"type":"object","properties":{"name":{"type":"string"},"age":{"type":"integer"},` +
				`"score":{"type":"number"},"tags":{"type":"array","items":{"type":"string"}},"ok":{"type":"boolean"},` +
				`"none":{"type":"null"}},"required":["name","age","score","tags","ok","none"]}}`, exact: true},
		{name: "infer merges array elements", op: "v/ops/schema/infer",
			in: `{"value":[{"id":1,"x":"a"},{"id":2.5},1,"s"]}`,
			want: `{"schema":{"type":"array","items":{"anyOf":[{"type":"object","properties":{"id":{"type":"number"},` +
				`"x":{"type":"string"}},"required":["id"]},{"type":"integer"},{"type":"string"}]}}}`, exact: true},
		{name: "infer an empty array", op: "v/ops/schema/infer", in: `{"value":[]}`, want: `{"schema":{"type":"array"}}`},
		{name: "infer needs a value", op: "v/ops/schema/infer", in: `{}`,
			refused: "missing property 'value'", wantErr: "'value' is required"},
		{name: "validate a valid value", op: "v/ops/schema/validate",
			in:   `{"schema":{"type":"object","properties":{"a":{"type":"integer","minimum":1}},"required":["a"]},"value":{"a":2}}`,
			want: `{"valid":true}`},
		{name: "validate names the first violation", op: "v/ops/schema/validate",
			in:   `{"schema":{"type":"object","properties":{"tags":{"type":"array","items":{"type":"string"}}}},"value":{"tags":["a",1]}}`,
			want: `{"valid":false,"error":"value.tags.1: got integer, want string"}`},
		{name: "validate a missing property", op: "v/ops/schema/validate",
			in:   `{"schema":{"required":["a"]},"value":{}}`,
			want: `{"valid":false,"error":"value: missing property 'a'"}`},
		{name: "validate additionalProperties", op: "v/ops/schema/validate",
			in:   `{"schema":{"properties":{"a":{}},"additionalProperties":false},"value":{"a":1,"b":2}}`,
			want: `{"valid":false,"error":"value.b: property is not allowed (additionalProperties is false)"}`},
		{name: "validate a pattern", op: "v/ops/schema/validate",
			in:   `{"schema":{"type":"string","pattern":"^[a-z]+$"},"value":"abc1"}`,
			want: `{"valid":false,"error":"value: \"abc1\" does not match the pattern \"^[a-z]+$\""}`},
		{name: "validate oneOf", op: "v/ops/schema/validate",
			in:   `{"schema":{"oneOf":[{"type":"number"},{"type":"integer"}]},"value":3}`,
			want: `{"valid":false,"error":"value: matches 2 schemas of oneOf, want exactly one"}`},
		{name: "validate a $ref", op: "v/ops/schema/validate",
			in:   `{"schema":{"$defs":{"pos":{"type":"integer","exclusiveMinimum":0}},"items":{"$ref":"#/$defs/pos"}},"value":[1,0]}`,
			want: `{"valid":false,"error":"value.1: 0 must be more than 0"}`},
		{name: "validate enum and const", op: "v/ops/schema/validate",
			in:   `{"schema":{"allOf":[{"enum":["a",{"x":[1,2]}]},{"const":{"x":[1,2.0]}}]},"value":{"x":[1,2]}}`,
			want: `{"valid":true}`},
		{name: "validate refuses unsupported keywords", op: "v/ops/schema/validate",
			in:      `{"schema":{"if":{"type":"string"}},"value":1}`,
			wantErr: "'schema' is not a valid JSON Schema: #/if: keyword 'if' is not supported by schema:validate"},
		{name: "validate refuses a malformed schema", op: "v/ops/schema/validate",
			in:      `{"schema":{"type":"text"},"value":1}`,
			wantErr: "'schema' is not a valid JSON Schema: #/type: \"text\" is not a JSON Schema type"},
	})
}

func TestGuest_JSON(t *testing.T) {
	runCases(t, []guestCase{
		{name: "merge deep, later wins, order kept", op: "v/ops/json/merge",
			in:   `{"values":[{"b":1,"a":{"x":1,"y":2}},{"a":{"y":3,"z":4},"c":null},{"b":[1]}]}`,
			want: `{"result":{"b":[1],"a":{"x":1,"y":3,"z":4}}}`, exact: true},
		{name: "merge: null deletes, as RFC 7396 has it", op: "v/ops/json/merge",
			in: `{"values":[{"b":{"c":1,"d":2}},{"b":{"c":null,"e":3}}]}`, want: `{"result":{"b":{"d":2,"e":3}}}`, exact: true},
		{name: "merge of non-objects replaces", op: "v/ops/json/merge", in: `{"values":[{"a":1},"s",2]}`, want: `{"result":2}`},
		{name: "merge of nothing", op: "v/ops/json/merge", in: `{"values":[]}`, want: `{"result":{}}`},
		{name: "merge needs values", op: "v/ops/json/merge", in: `{"values":{}}`,
			refused: "input.values: got object, want array", wantErr: "'values' must be an array of values to merge"},
		{name: "select a case", op: "v/ops/json/select", in: `{"key":"b","cases":{"a":1,"b":{"x":2}},"default":0}`,
			want: `{"result":{"x":2}}`},
		{name: "select by a number", op: "v/ops/json/select", in: `{"key":2,"cases":{"2":"two"}}`, want: `{"result":"two"}`},
		{name: "select the default", op: "v/ops/json/select", in: `{"key":"z","cases":{"a":1},"default":"d"}`, want: `{"result":"d"}`},
		{name: "select without a default", op: "v/ops/json/select", in: `{"key":"z","cases":{"a":1}}`, want: `{"result":null}`},
		{name: "assoc creates objects", op: "v/ops/json/assoc", in: `{"target":{"a":{"k":1}},"path":"a/b/c","value":5}`,
			want: `{"result":{"a":{"k":1,"b":{"c":5}}}}`, exact: true},
		{name: "assoc by array path into an array", op: "v/ops/json/assoc", in: `{"target":{"l":[1,2]},"path":["l",2],"value":3}`,
			want: `{"result":{"l":[1,2,3]}}`},
		{name: "assoc on nothing", op: "v/ops/json/assoc", in: `{"path":"a","value":true}`, want: `{"result":{"a":true}}`},
		{name: "assoc into a scalar fails", op: "v/ops/json/assoc", in: `{"target":{"a":1},"path":"a/b","value":2}`,
			wantErr: "cannot set 'b' inside an integer"},
		{name: "assoc refuses an empty segment", op: "v/ops/json/assoc", in: `{"target":{"a":1},"path":"/a","value":3}`,
			wantErr: `'path' "/a" has an empty segment: separate keys with one '/', with none at either end (an empty key can be given in the array form, ["a", ""])`},
		{name: "assoc refuses a doubled slash", op: "v/ops/json/assoc", in: `{"target":{},"path":"a//b","value":3}`,
			wantErr: `'path' "a//b" has an empty segment: separate keys with one '/', with none at either end (an empty key can be given in the array form, ["a", ""])`},
		{name: "assoc takes an empty key in the array form", op: "v/ops/json/assoc", in: `{"target":{},"path":["a",""],"value":3}`,
			want: `{"result":{"a":{"":3}}}`},
		{name: "assoc with an empty path replaces the target", op: "v/ops/json/assoc", in: `{"target":{"a":1},"path":"","value":3}`,
			want: `{"result":3}`},
		{name: "select with a null key gives the default", op: "v/ops/json/select",
			in: `{"key":null,"cases":{"null":1},"default":"d"}`, want: `{"result":"d"}`},
		{name: "cond picks the first truthy", op: "v/ops/json/cond",
			in:   `{"cases":[{"if":0,"then":"zero"},{"if":[],"then":"empty"},{"if":"yes","then":"first"},{"if":true,"then":"second"}],"default":"d"}`,
			want: `{"result":"first"}`},
		{name: "cond falls back to the default", op: "v/ops/json/cond",
			in: `{"cases":[{"if":null,"then":1},{"if":{},"then":2},{"if":"","then":3},{"then":4}],"default":"d"}`, want: `{"result":"d"}`},
		{name: "cond with the reference's when: only null and false fail", op: "v/ops/json/cond",
			in:   `{"cases":[{"when":null,"then":1},{"when":false,"then":2},{"when":0,"then":"zero"},{"when":true,"then":4}],"default":"d"}`,
			want: `{"result":"zero"}`},
		{name: "cond with when, none holding", op: "v/ops/json/cond",
			in: `{"cases":[{"when":false,"then":1}],"default":"d"}`, want: `{"result":"d"}`},
	})
}

// bearerNotRef is the error for a bearerSecret that is not written as a
// reference: it may be the secret itself, so it is not repeated.
const bearerNotRef = "Could not resolve bearerSecret reference: give s/NAME, the name of one of your stored secrets " +
	"(PUT /api/v1/secrets/{name}), never the secret's value; what was given is not repeated here in case it is one"

func TestGuest_HTTP(t *testing.T) {
	response := `{"status":200,"headers":{"content-length":"11","content-type":"application/json"},"body":"{\"ok\":true}","url":"{web}/x"}`
	runCases(t, []guestCase{
		{name: "get", secrets: map[string]string{"TOKEN": "tok-get"}, op: "v/ops/http/get",
			in:       `{"url":"{web}/x","headers":{"Accept":"application/json"},"queryParams":{"page":2,"all":true,"q":"a b"},"bearerSecret":"s/TOKEN","timeoutMs":5000}`,
			want:     strings.Replace(response, "/x", "/x?all=true&page=2&q=a+b", 1),
			wantSent: `{"method":"GET","uri":"/x?all=true&page=2&q=a+b","headers":{"Accept":"application/json","Authorization":"Bearer tok-get"},"body":""}`},
		{name: "get drops a body", op: "v/ops/http/get", in: `{"url":"{web}/x","body":{"a":1}}`,
			want: response, wantSent: `{"method":"GET","uri":"/x","headers":{},"body":""}`},
		{name: "post sends JSON", secrets: map[string]string{"AUTH": "Basic dXNlcg=="}, op: "v/ops/http/post",
			in:       `{"url":"{web}/x","body":{"a":[1,2]},"secretHeaders":{"Authorization":"s/AUTH"}}`,
			want:     response,
			wantSent: `{"method":"POST","uri":"/x","headers":{"Authorization":"Basic dXNlcg==","Content-Type":"application/json"},"body":"{\"a\":[1,2]}"}`},
		{name: "post with another method", op: "v/ops/http/post", in: `{"url":"{web}/x","method":"patch","body":"text"}`,
			want:     response,
			wantSent: `{"method":"PATCH","uri":"/x","headers":{"Content-Type":"text/plain; charset=utf-8"},"body":"text"}`},
		{name: "post sends GET when told, without a body", op: "v/ops/http/post", in: `{"url":"{web}/x","method":"GET","body":"text"}`,
			want: response, wantSent: `{"method":"GET","uri":"/x","headers":{},"body":""}`},
		{name: "get sends another method when told", op: "v/ops/http/get", in: `{"url":"{web}/x","method":"delete"}`,
			want: response, wantSent: `{"method":"DELETE","uri":"/x","headers":{},"body":""}`},
		{name: "an unknown method is refused", op: "v/ops/http/post", in: `{"url":"{web}/x","method":"TRACE"}`,
			wantErr: "Unsupported HTTP method: TRACE", wantSent: noRequest},
		{name: "url is required", op: "v/ops/http/get", in: `{}`,
			refused: "missing property 'url'", wantErr: "'url' is required", wantSent: noRequest},
		{name: "a header must be a scalar", op: "v/ops/http/get", in: `{"url":"{web}/x","headers":{"X":{"a":1}}}`,
			refused: "input.headers.X: got object", wantErr: "'headers.X' must be a string, number or boolean", wantSent: noRequest},
		{name: "the host's refusal is the error", op: "v/ops/http/get", in: `{"url":"http://10.0.0.1/"}`,
			wantErr: "URL targets a private/internal address: 10.0.0.1 (resolved to 10.0.0.1). Add the host to allowHosts if this is intentional.", rejected: true},
		{name: "a URL placeholder is escaped for its place and comes back unfilled", secrets: map[string]string{"URLKEY": "k1é€ x/y&z"},
			op: "v/ops/http/get", in: `{"url":"{web}/k/{s/URLKEY}?q={s/URLKEY}","queryParams":{"n":1}}`,
			want:     strings.Replace(response, "/x", "/k/{s/URLKEY}?n=1&q={s/URLKEY}", 1),
			wantSent: `{"method":"GET","uri":"/k/k1%C3%A9%E2%82%AC%20x%2Fy&z?n=1&q=k1%C3%A9%E2%82%AC+x%2Fy%26z","headers":{},"body":""}`},
		{name: "an error quotes the placeholder, never its value", secrets: map[string]string{"URLKEY": "k1é€ x/y&z"},
			op: "v/ops/http/get", in: `{"url":"http:///k/{s/URLKEY}"}`,
			wantErr: "URL has no host: http:///k/{s/URLKEY}", wantSent: noRequest},
		{name: "a raw token given as bearerSecret is not repeated", op: "v/ops/http/get",
			in:      `{"url":"{web}/x","bearerSecret":"ghp_rawToken0123"}`,
			wantErr: bearerNotRef, wantSent: noRequest},
		{name: "a raw value given in secretHeaders is not repeated", op: "v/ops/http/post",
			in:      `{"url":"{web}/x","secretHeaders":{"X-Api-Key":"raw value 0123"}}`,
			wantErr: strings.Replace(bearerNotRef, "bearerSecret", "secretHeaders[X-Api-Key]", 1), wantSent: noRequest},
		{name: "a literal password in the URL is refused and not repeated", op: "v/ops/http/get",
			in:        `{"url":"http://alice:LITPASS@127.0.0.1:1/u"}`,
			wantErr:   "URL http://...@127.0.0.1:1/u carries a user name or password, which the venue sends only from a secret: write the user info as {s/NAME} placeholders (https://{s/USER}:{s/PASS}@host/...) or give the credential in secretHeaders",
			wantInput: `{"url":"http://HIDDEN@127.0.0.1:1/u"}`, wantSent: noRequest},
		{name: "a literal password after a placeholder user name is refused", secrets: map[string]string{"USER": "u-ser"}, op: "v/ops/http/get",
			in:        `{"url":"http://{s/USER}:LITPASS@127.0.0.1:1/u"}`,
			wantErr:   "URL http://...@127.0.0.1:1/u carries a user name or password, which the venue sends only from a secret: write the user info as {s/NAME} placeholders (https://{s/USER}:{s/PASS}@host/...) or give the credential in secretHeaders",
			wantInput: `{"url":"http://HIDDEN@127.0.0.1:1/u"}`, wantSent: noRequest},
		{name: "user info made of placeholders stays in the record", secrets: map[string]string{"USER": "u-ser", "PASS": "p-ass"}, op: "v/ops/http/get",
			in:        `{"url":"{web}/x","headers":{"X-Note":"see https://{s/USER}:{s/PASS}@example.com/"}}`,
			want:      response,
			wantInput: `{"url":"{web}/x","headers":{"X-Note":"see https://{s/USER}:{s/PASS}@example.com/"}}`,
			wantSent:  `{"method":"GET","uri":"/x","headers":{"X-Note":"see https://{s/USER}:{s/PASS}@example.com/"},"body":""}`},
		{name: "a header name with a space is refused", op: "v/ops/http/get", in: `{"url":"{web}/x","headers":{"X-Note ":"a"}}`,
			wantErr: "Header name \"X-Note \" is not an HTTP header name: use letters, digits and !#$%&'*+-.^_`|~ only", wantSent: noRequest},
		{name: "a header value with a line break is refused", op: "v/ops/http/get", in: `{"url":"{web}/x","headers":{"X-Note":"a\r\nX-Other: b"}}`,
			wantErr: "The value of header X-Note holds a control character (a line break?): header values are one line of text", wantSent: noRequest},
		{name: "a placeholder may not stand for the scheme", secrets: map[string]string{"SCHEME": "ftp://evil"}, op: "v/ops/http/get",
			in:      `{"url":"{s/SCHEME}/x"}`,
			wantErr: "URL {s/SCHEME}/x must begin with its scheme written out (https:// or http://): a {s/NAME} placeholder may stand only after it", wantSent: noRequest},
		{name: "a literal credential header is refused", op: "v/ops/http/get",
			in:       `{"url":"{web}/x","headers":{"proxy-authorization":"Basic dXNlcjpwYXNz"}}`,
			wantErr:  `The header Proxy-Authorization carries a credential, which the venue sends only from a secret: store it (PUT /api/v1/secrets/NAME) and give secretHeaders {"Proxy-Authorization": "s/NAME"}, or bearerSecret "s/NAME" for a bearer token`,
			wantSent: noRequest},
		{name: "a literal Authorization a secret overrides is no credential sent", secrets: map[string]string{"TOKEN": "tok-over"}, op: "v/ops/http/get",
			in:       `{"url":"{web}/x","headers":{"Authorization":"placeholder"},"bearerSecret":"s/TOKEN"}`,
			want:     response,
			wantSent: `{"method":"GET","uri":"/x","headers":{"Authorization":"Bearer tok-over"},"body":""}`},
		{name: "a Host header is refused", op: "v/ops/http/get", in: `{"url":"{web}/x","headers":{"Host":"api.example.com"}}`,
			wantErr: "The header Host in headers is set by the venue from the URL's host: leave it out", wantSent: noRequest},
		{name: "a Content-Length header is refused in any case", op: "v/ops/http/post", in: `{"url":"{web}/x","headers":{"content-length":"999"},"body":"hello"}`,
			wantErr: "The header Content-Length in headers is set by the venue from the body: leave it out", wantSent: noRequest},
		{name: "a Transfer-Encoding header is refused", op: "v/ops/http/post", in: `{"url":"{web}/x","headers":{"Transfer-Encoding":"chunked"},"body":"hello"}`,
			wantErr: "The header Transfer-Encoding in headers is set by the venue from the body: leave it out", wantSent: noRequest},
		{name: "a Trailer header is refused", op: "v/ops/http/post", in: `{"url":"{web}/x","headers":{"Trailer":"X-T"},"body":"hello"}`,
			wantErr: "The header Trailer in headers is set by the venue from the body: leave it out", wantSent: noRequest},
		{name: "a Host secret header is refused", secrets: map[string]string{"VHOST": "internal.example"}, op: "v/ops/http/get",
			in:      `{"url":"{web}/x","secretHeaders":{"host":"s/VHOST"}}`,
			wantErr: "The header Host in secretHeaders is set by the venue from the URL's host: leave it out", wantSent: noRequest},
		{name: "a bearer secret holding a line break is refused before sending", secrets: map[string]string{"CRLF": "abc\r\nX-Injected: 1"},
			op: "v/ops/http/get", in: `{"url":"{web}/x","bearerSecret":"s/CRLF"}`,
			wantErr: "The secret s/CRLF for bearerSecret holds a control character (a line break?): a header value is one line of text", wantSent: noRequest},
		{name: "a timeout beyond a day is refused by the schema", op: "v/ops/http/get", in: `{"url":"{web}/x","timeoutMs":99999999999999999999}`,
			refused: "input.timeoutMs: maximum: got 99999999999999999999, want 86400000",
			wantErr: "http:get: 'request.timeoutMs' must be an integer, got number 99999999999999999999", wantSent: noRequest},
		{name: "a timeout too long for a duration leaves the venue's own", op: "v/ops/http/get", in: `{"url":"{web}/x","timeoutMs":9223372036854775807}`,
			refused: "input.timeoutMs: maximum: got 9223372036854775807, want 86400000", want: response, wantSent: `{"method":"GET","uri":"/x","headers":{},"body":""}`},
		{name: "a reference that resolves to nothing is named", op: "v/ops/http/get", in: `{"url":"{web}/x","bearerSecret":"s/NOT_STORED"}`,
			wantErr: "Could not resolve bearerSecret reference: s/NOT_STORED (Secret not found: NOT_STORED)", wantSent: noRequest},
	})
}

// TestGuest_HTTPBodyLimit checks one limit holds for every response body:
// any body within it completes, whatever its bytes (a body of '<', NULs or
// bytes that are not UTF-8 failed at a third of the limit, as a host
// call's result too large), and the error past it states it.
func TestGuest_HTTPBodyLimit(t *testing.T) {
	const limit = 6 << 20 // the documented limit (README, the http ops' catalog)
	s := mustStack(t)
	for _, tc := range []struct {
		name, query string
		base64      bool
	}{
		{"'<' up to the limit comes as text", "byte=60&n=6291456", false},
		{"NULs up to the limit come in base64", "byte=0&n=6291456", true},
		{"bytes not UTF-8 up to the limit come in base64", "byte=255&n=6291456", true},
		{"a gzip body inflating to the limit", "byte=0&n=6291456&gzip=1", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			j := s.run(t, "v/ops/http/get", `{"url":"`+s.web.URL+`/fill?`+tc.query+`"}`)
			var out struct {
				Body       *string `json:"body"`
				BodyBase64 []byte  `json:"bodyBase64"`
			}
			if j.Status != venue.StatusComplete || json.Unmarshal(j.Output, &out) != nil {
				t.Fatalf("status %s, error %q", j.Status, j.Error)
			}
			if got := len(out.BodyBase64); tc.base64 && (got != limit || out.Body != nil) {
				t.Fatalf("bodyBase64 of %d bytes, body %v", got, out.Body != nil)
			}
			if !tc.base64 && (out.Body == nil || len(*out.Body) != limit) {
				t.Fatalf("no body of %d bytes of text", limit)
			}
		})
	}
	for _, query := range []string{"byte=60&n=6291457", "byte=0&n=6291457&gzip=1"} {
		j := s.run(t, "v/ops/http/get", `{"url":"`+s.web.URL+`/fill?`+query+`"}`)
		if want := "Response body exceeds the venue's limit of 6291456 bytes (6 MiB, counted after a Content-Encoding such as gzip is undone)"; j.Error != want {
			t.Errorf("%s: status %s, error %q\nwant %q", query, j.Status, j.Error, want)
		}
	}
}

// shortSecret is the venue's refusal of a value too short to mask.
const shortSecret = "Secret value must be at least 4 characters: shorter values cannot be masked reliably in job records"

func TestGuest_Secret(t *testing.T) {
	runCases(t, []guestCase{
		{name: "set by name", op: "v/ops/secret/set", in: `{"name":"GITHUB_TOKEN","value":"ghp_x"}`,
			want: `{"name":"GITHUB_TOKEN","stored":true}`, wantSecrets: map[string]string{"GITHUB_TOKEN": "ghp_x"}},
		{name: "set by key", op: "v/ops/secret/set", in: `{"key":"K","value":"v-key"}`,
			want: `{"name":"K","stored":true}`, wantSecrets: map[string]string{"K": "v-key"}},
		{name: "the venue refuses an empty value", op: "v/ops/secret/set", in: `{"key":"EMPTY","value":""}`,
			wantErr: `secret.set: "value" is required`},
		{name: "name or key is required", op: "v/ops/secret/set", in: `{"value":"v"}`,
			wantErr: "'name' (or 'key') is required: the secret's name"},
		{name: "value is required", op: "v/ops/secret/set", in: `{"name":"K"}`,
			refused: "missing property 'value'", wantErr: "'value' is required"},
		{name: "name and key must agree", op: "v/ops/secret/set", in: `{"name":"A","key":"B","value":"v"}`,
			wantErr: "secret:set got both 'name' (A) and 'key' (B): give one"},
		{name: "a name written as a reference", op: "v/ops/secret/set", in: `{"name":"s/TOK","value":"tok-value"}`,
			want: `{"name":"TOK","stored":true}`, wantSecrets: map[string]string{"TOK": "tok-value"}},
		{name: "a key written as a reference", op: "v/ops/secret/set", in: `{"key":"s/TOK2","value":"tok-value-2"}`,
			want: `{"name":"TOK2","stored":true}`, wantSecrets: map[string]string{"TOK2": "tok-value-2"}},
		{name: "name and key agree once written alike", op: "v/ops/secret/set", in: `{"name":"s/TOK3","key":"TOK3","value":"tok-value-3"}`,
			want: `{"name":"TOK3","stored":true}`, wantSecrets: map[string]string{"TOK3": "tok-value-3"}},
		{name: "a value too short to mask is refused", op: "v/ops/secret/set", in: `{"name":"SHORT","value":"abc"}`,
			wantErr: shortSecret},
		{name: "four characters are enough", op: "v/ops/secret/set", in: `{"name":"FOUR","value":"é€ab"}`,
			want: `{"name":"FOUR","stored":true}`, wantSecrets: map[string]string{"FOUR": "é€ab"}},
	})
}
