package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"strconv"

	"github.com/gridvenue/venue/tools/internal/rawhttp"
)

// rawSession is a streamable-HTTP MCP session on one keep-alive HTTP/1.1
// connection, written and read by hand as wrk does for plain HTTP: the
// request is a prefix and a suffix around the call's id, and the answer is
// read by Content-Length or chunks, JSON or an SSE stream. It costs a
// fraction of the CPU per call of Go's net/http client, so that the
// machine's two cores go to the servers measured, not to the client.
type rawSession struct {
	conn     net.Conn
	r        *bufio.Reader
	host     string
	path     string
	headers  string // protocol version and session id, once known
	id       int
	body     []byte
	prefix   []byte // of a tools/call, up to its id
	suffix   []byte // after its id
	lastTool string
}

func dialRaw(rawURL string) (*rawSession, error) {
	conn, u, err := rawhttp.Dial(rawURL)
	if err != nil {
		return nil, err
	}
	s := &rawSession{conn: conn, r: bufio.NewReaderSize(conn, 64<<10), host: u.Host, path: u.RequestURI()}
	init := `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"mcpbench","version":"1"}}}`
	msg, sid, err := s.post("POST", []byte(init))
	if err != nil || sid == "" {
		conn.Close()
		return nil, fmt.Errorf("initialize: %s %v", msg, err)
	}
	var res struct {
		Result struct {
			ProtocolVersion string `json:"protocolVersion"`
		} `json:"result"`
	}
	if err := json.Unmarshal(msg, &res); err != nil {
		conn.Close()
		return nil, fmt.Errorf("initialize: %s", msg)
	}
	s.headers = "Mcp-Session-Id: " + sid + "\r\nMcp-Protocol-Version: " + res.Result.ProtocolVersion + "\r\n"
	if _, _, err := s.post("POST", []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)); err != nil {
		conn.Close()
		return nil, fmt.Errorf("initialized: %v", err)
	}
	return s, nil
}

// call sends a tools/call with a fresh id and checks the answer is a
// result that is not an error.
func (s *rawSession) call(_ context.Context, tool string, args map[string]any) error {
	if tool != s.lastTool || s.prefix == nil {
		a, err := json.Marshal(args)
		if err != nil {
			return err
		}
		s.prefix = []byte(`{"jsonrpc":"2.0","id":`)
		s.suffix = fmt.Appendf(nil, `,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, tool, a)
		s.lastTool = tool
	}
	s.id++
	s.body = append(strconv.AppendInt(append(s.body[:0], s.prefix...), int64(s.id), 10), s.suffix...)
	msg, _, err := s.post("POST", s.body)
	switch {
	case err != nil:
		return err
	case !bytes.Contains(msg, []byte(`"result"`)):
		return fmt.Errorf("not a result: %.300s", msg)
	case bytes.Contains(msg, []byte(`"isError":true`)):
		return fmt.Errorf("tool error: %.300s", msg)
	}
	return nil
}

func (s *rawSession) close() {
	s.post("DELETE", nil)
	s.conn.Close()
}

// post sends one request and returns the JSON-RPC message of its answer
// (nil for none) and the Mcp-Session-Id the server sent, if any.
func (s *rawSession) post(method string, body []byte) ([]byte, string, error) {
	req := fmt.Appendf(nil, "%s %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n%sContent-Length: %d\r\n\r\n",
		method, s.path, s.host, s.headers, len(body))
	if _, err := s.conn.Write(append(req, body...)); err != nil {
		return nil, "", err
	}
	status, h, err := s.head()
	if err != nil {
		return nil, "", err
	}
	payload, err := s.payload(h)
	if err != nil {
		return nil, "", err
	}
	if status/100 != 2 {
		return nil, "", fmt.Errorf("status %d: %.300s", status, payload)
	}
	if h.sse {
		return sseMessage(payload), h.sid, nil
	}
	return payload, h.sid, nil
}

type rawHead struct {
	length  int // -1: none
	chunked bool
	sse     bool
	sid     string
}

// head reads the status line and the headers the session needs.
func (s *rawSession) head() (int, rawHead, error) {
	h := rawHead{length: -1}
	status, err := rawhttp.ReadHead(s.r, func(name, value []byte) {
		switch {
		case bytes.EqualFold(name, []byte("Content-Length")):
			h.length, _ = strconv.Atoi(string(value))
		case bytes.EqualFold(name, []byte("Transfer-Encoding")):
			h.chunked = bytes.EqualFold(value, []byte("chunked"))
		case bytes.EqualFold(name, []byte("Content-Type")):
			h.sse = bytes.HasPrefix(value, []byte("text/event-stream"))
		case bytes.EqualFold(name, []byte("Mcp-Session-Id")):
			h.sid = string(value)
		}
	})
	return status, h, err
}

// payload reads the body: by its length, or chunk by chunk to the last.
func (s *rawSession) payload(h rawHead) ([]byte, error) {
	if !h.chunked {
		b := make([]byte, max(h.length, 0))
		_, err := io.ReadFull(s.r, b)
		return b, err
	}
	var b []byte
	for {
		line, err := s.r.ReadSlice('\n')
		if err != nil {
			return nil, err
		}
		n, err := strconv.ParseInt(string(bytes.TrimSpace(line)), 16, 32)
		if err != nil {
			return nil, fmt.Errorf("bad chunk size %q", line)
		}
		chunk := make([]byte, n+2) // and its CRLF
		if _, err := io.ReadFull(s.r, chunk); err != nil {
			return nil, err
		}
		if n == 0 {
			return b, nil
		}
		b = append(b, chunk[:n]...)
	}
}

// sseMessage is the first data line of an SSE stream.
func sseMessage(stream []byte) []byte {
	for len(stream) > 0 {
		var line []byte
		line, stream, _ = bytes.Cut(stream, []byte("\n"))
		if data, ok := bytes.CutPrefix(bytes.TrimSpace(line), []byte("data:")); ok && len(bytes.TrimSpace(data)) > 0 {
			return bytes.TrimSpace(data)
		}
	}
	return nil
}
