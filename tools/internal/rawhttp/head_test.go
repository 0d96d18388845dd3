package rawhttp

import (
	"bufio"
	"strings"
	"testing"
)

func TestReadHead(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		status   int
		headers  string
		wantErr  bool
	}{
		{"headers", "HTTP/1.1 201 Created\r\nContent-Length: 12\r\nX-A:  b \r\n\r\nbody", 201, "Content-Length=12;X-A=b;", false},
		{"no headers", "HTTP/1.1 204 No Content\r\n\r\n", 204, "", false},
		{"not HTTP/1.1", "HTTP/2 200\r\n\r\n", 0, "", true},
		{"cut short", "HTTP/1.1 200 OK\r\nContent-", 0, "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got strings.Builder
			status, err := ReadHead(bufio.NewReader(strings.NewReader(tc.in)), func(k, v []byte) {
				got.WriteString(string(k) + "=" + string(v) + ";")
			})
			if (err != nil) != tc.wantErr || status != tc.status || got.String() != tc.headers {
				t.Fatalf("ReadHead = %d, %q, %v; want %d, %q, error %v", status, got.String(), err, tc.status, tc.headers, tc.wantErr)
			}
		})
	}
}
