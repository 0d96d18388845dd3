package main

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestREST_ForeignPages checks that web pages of other sites cannot drive
// a venue on loopback through a visitor's browser: no cross-origin request
// that changes something, and no request naming a host that is not the
// venue's (DNS rebinding). Programs, which send no Origin, are unaffected.
func TestREST_ForeignPages(t *testing.T) {
	m := MustRunMain(t, "")
	c := newClient(m)
	_, port, _ := net.SplitHostPort(m.Addr)
	invoke := `{"operation": "v/test/ops/echo", "input": {"n": 1}}`
	for _, tc := range []struct {
		name   string
		host   string // "" sends the address dialled
		header []string
		status int
		want   string
	}{
		{"a program", "", nil, 201, ""},
		{"a page of another site, by Origin", "", []string{"Origin", "https://evil.example"}, 403, "Cross-origin request refused"},
		{"a page of another site, by Sec-Fetch-Site", "", []string{"Sec-Fetch-Site", "cross-site", "Content-Type", "text/plain"}, 403,
			"Cross-origin request refused"},
		{"a page the venue serves", "", []string{"Origin", "http://" + m.Addr, "Sec-Fetch-Site", "same-origin"}, 201, ""},
		{"localhost", "localhost:" + port, nil, 201, ""},
		{"localhost in capitals with a final dot", "LOCALHOST.:" + port, nil, 201, ""},
		{"a loopback address", "127.0.0.2:" + port, nil, 201, ""},
		{"a rebound name", "rebind.evil.example:" + port, nil, 421, `This venue does not answer to host \"rebind.evil.example:` + port},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest("POST", c.base+"/api/v1/invoke", strings.NewReader(invoke))
			req.Header.Set("Content-Type", "application/json")
			for i := 0; i+1 < len(tc.header); i += 2 {
				req.Header.Set(tc.header[i], tc.header[i+1])
			}
			if tc.host != "" {
				req.Host = tc.host
			}
			resp, err := c.http.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tc.status || !strings.Contains(string(b), tc.want) {
				t.Fatalf("%d %s, want %d with %q", resp.StatusCode, b, tc.status, tc.want)
			}
		})
	}
	t.Run("reads from another site are still answered", func(t *testing.T) {
		if r := c.do(t, "GET", "/api/v1/status", nil, "Origin", "https://evil.example", "Sec-Fetch-Site", "cross-site"); r.status != 200 {
			t.Fatalf("status %d", r.status)
		}
	})
}

// TestREST_ClientThatHalfCloses sends requests and shuts its side of the
// connection for writing before the answer, as nc -N does: net/http then
// cancels the request's context. An invoke must still run the job it
// recorded (never a job left PENDING for good), and a read must not be
// answered as an internal error.
func TestREST_ClientThatHalfCloses(t *testing.T) {
	m := MustRunMain(t, "")
	c := newClient(m)
	halfClose := func(t *testing.T, method, path, body string) (int, string) {
		t.Helper()
		conn, err := net.Dial("tcp", m.Addr)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		fmt.Fprintf(conn, "%s %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s",
			method, path, m.Addr, len(body), body)
		conn.(*net.TCPConn).CloseWrite()
		conn.SetReadDeadline(time.Now().Add(10 * time.Second))
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			return 0, err.Error() // the venue may also just close: the client has gone
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	for range 5 {
		status, body := halfClose(t, "POST", "/api/v1/invoke", `{"operation": "v/test/ops/echo", "input": {"n": 1}}`)
		if status == http.StatusInternalServerError {
			t.Fatalf("invoke: %d %s", status, body)
		}
		for _, path := range []string{"/api/v1/status", "/api/v1/jobs", "/api/v1/secrets"} {
			if status, body := halfClose(t, "GET", path, ""); status == http.StatusInternalServerError {
				t.Fatalf("GET %s: %d %s", path, status, body)
			}
		}
	}
	var ids []string
	c.do(t, "GET", "/api/v1/jobs", nil).json(t, &ids)
	if len(ids) == 0 {
		t.Fatal("no job was recorded: the test did not exercise the invoke")
	}
	for _, id := range ids {
		eventually(t, "job "+id+" ends", func() bool {
			var j jobJSON
			c.do(t, "GET", "/api/v1/jobs/"+id, nil).json(t, &j)
			return j.Status == "COMPLETE"
		})
	}
}
