package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// session is one MCP client session that can call a tool.
type session interface {
	call(ctx context.Context, tool string, args map[string]any) error
	close()
}

// dial opens a session with the client named kind: "raw" (rawSession:
// HTTP/1.1 by hand, so that the two shared cores go to the servers),
// "lean" (minimal JSON-RPC over Go's net/http client) or "sdk" (the
// official Go SDK's client, as a Go program would).
func dial(kind, url string, hc *http.Client) (session, error) {
	if kind == "raw" {
		return dialRaw(url)
	}
	if kind == "sdk" {
		client := mcp.NewClient(&mcp.Implementation{Name: "mcpbench", Version: "1"}, nil)
		s, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: hc, DisableStandaloneSSE: true}, nil)
		if err != nil {
			return nil, err
		}
		return sdkSession{s}, nil
	}
	return dialLean(url, hc)
}

type sdkSession struct{ s *mcp.ClientSession }

func (s sdkSession) call(ctx context.Context, tool string, args map[string]any) error {
	res, err := s.s.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		return err
	}
	if res.IsError {
		return fmt.Errorf("tool error: %+v", res.Content)
	}
	return nil
}

func (s sdkSession) close() { s.s.Close() }

// leanSession speaks the streamable-HTTP transport directly: initialize,
// then one POST per call with the session id, reading the answer as JSON
// or as an SSE stream, whichever the server sends.
type leanSession struct {
	hc       *http.Client
	url, sid string
	proto    string
	id       int
}

func dialLean(url string, hc *http.Client) (*leanSession, error) {
	s := &leanSession{hc: hc, url: url, proto: "2025-06-18"}
	var init struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	body := `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"mcpbench","version":"1"}}}`
	if err := s.post(context.Background(), []byte(body), &init); err != nil {
		return nil, fmt.Errorf("initialize: %w", err)
	}
	s.proto = init.ProtocolVersion
	if err := s.post(context.Background(), []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`), nil); err != nil {
		return nil, fmt.Errorf("initialized: %w", err)
	}
	return s, nil
}

func (s *leanSession) call(ctx context.Context, tool string, args map[string]any) error {
	s.id++
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": s.id, "method": "tools/call",
		"params": map[string]any{"name": tool, "arguments": args}})
	var res struct {
		IsError bool            `json:"isError"`
		Content json.RawMessage `json:"content"`
	}
	if err := s.post(ctx, body, &res); err != nil {
		return err
	}
	if res.IsError {
		return fmt.Errorf("tool error: %s", res.Content)
	}
	return nil
}

func (s *leanSession) close() {
	req, _ := http.NewRequest(http.MethodDelete, s.url, nil)
	req.Header.Set("Mcp-Session-Id", s.sid)
	if resp, err := s.hc.Do(req); err == nil {
		resp.Body.Close()
	}
}

// post sends one message; a request's result is decoded into out, a
// notification (out nil) must be accepted.
func (s *leanSession) post(ctx context.Context, body []byte, out any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", s.proto)
	if s.sid != "" {
		req.Header.Set("Mcp-Session-Id", s.sid)
	}
	resp, err := s.hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if sid := resp.Header.Get("Mcp-Session-Id"); sid != "" {
		s.sid = sid
	}
	if out == nil {
		io.Copy(io.Discard, resp.Body)
		if resp.StatusCode/100 != 2 {
			return fmt.Errorf("status %s", resp.Status)
		}
		return nil
	}
	msg, err := message(resp)
	if err != nil {
		return err
	}
	var m struct {
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(msg, &m); err != nil {
		return fmt.Errorf("answer is not JSON-RPC: %s", msg)
	}
	if m.Error != nil {
		return fmt.Errorf("JSON-RPC error %d: %s", m.Error.Code, m.Error.Message)
	}
	return json.Unmarshal(m.Result, out)
}

// message is the JSON-RPC message of a response: the body, or the first
// data line of an SSE stream.
func message(resp *http.Response) ([]byte, error) {
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return nil, fmt.Errorf("status %s: %s", resp.Status, b)
	}
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		return io.ReadAll(resp.Body)
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if data, ok := bytes.CutPrefix(sc.Bytes(), []byte("data:")); ok && len(bytes.TrimSpace(data)) > 0 {
			msg := bytes.Clone(bytes.TrimSpace(data))
			io.Copy(io.Discard, resp.Body)
			return msg, nil
		}
	}
	return nil, fmt.Errorf("SSE stream ended without a message: %v", sc.Err())
}
