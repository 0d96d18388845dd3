package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"

	"github.com/gridvenue/venue/tools/internal/rawhttp"
)

// rawClient is one keep-alive HTTP/1.1 connection that sends the same POST
// again and again. It writes a request built once and reads the response
// by its Content-Length: the least work a client can do, like wrk, so that
// the machine's two cores go to the servers under test. It expects what
// these servers send: a status line, headers with Content-Length, a body.
// poster sends one prepared POST again and again.
type poster interface {
	post() (int, []byte, error)
	close()
}

// dial opens a client of the kind named: "raw" (rawClient) or "go", Go's
// net/http client, which is what a program calling the venue would use
// and costs several times the CPU per request.
func dial(kind, rawURL string, body []byte) (poster, error) {
	if kind == "go" {
		return &goClient{url: rawURL, body: body, c: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1}}}, nil
	}
	return dialRaw(rawURL, body)
}

type goClient struct {
	url  string
	body []byte
	c    *http.Client
}

func (g *goClient) post() (int, []byte, error) {
	resp, err := g.c.Post(g.url, "application/json", bytes.NewReader(g.body))
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, b, err
}

func (g *goClient) close() { g.c.CloseIdleConnections() }

type rawClient struct {
	conn net.Conn
	r    *bufio.Reader
	req  []byte
	body []byte
}

func dialRaw(rawURL string, body []byte) (*rawClient, error) {
	conn, u, err := rawhttp.Dial(rawURL)
	if err != nil {
		return nil, err
	}
	req := fmt.Appendf(nil, "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s",
		u.RequestURI(), u.Host, len(body), body)
	return &rawClient{conn: conn, r: bufio.NewReaderSize(conn, 16<<10), req: req}, nil
}

func (c *rawClient) close() { c.conn.Close() }

// post sends the request and returns the status and body.
func (c *rawClient) post() (int, []byte, error) {
	if _, err := c.conn.Write(c.req); err != nil {
		return 0, nil, err
	}
	n := -1
	status, err := rawhttp.ReadHead(c.r, func(name, value []byte) {
		if bytes.EqualFold(name, []byte("Content-Length")) {
			n, _ = strconv.Atoi(string(value))
		}
	})
	if err != nil {
		return 0, nil, err
	}
	if n < 0 {
		return 0, nil, fmt.Errorf("response without Content-Length")
	}
	if cap(c.body) < n {
		c.body = make([]byte, n)
	}
	c.body = c.body[:n]
	_, err = io.ReadFull(c.r, c.body)
	return status, c.body, err
}
