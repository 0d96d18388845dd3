package main

import (
	"bufio"
	"log/slog"
	"net"
	"net/http"
	"testing"
	"time"
)

// TestConnLimit: past its bound the listener serves no new connection,
// and serves it once one closes; closing the listener ends a waiting
// Accept.
func TestConnLimit(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	lim := newConnLimit(ln, 2, slog.New(slog.DiscardHandler))
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("ok")) })}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(lim) }()
	var held []net.Conn
	for range 2 {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		held = append(held, c)
	}
	extra, err := net.Dial("tcp", ln.Addr().String()) // the kernel takes it; the venue does not yet
	if err != nil {
		t.Fatal(err)
	}
	defer extra.Close()
	answered := make(chan error, 1)
	go func() {
		extra.Write([]byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n"))
		_, err := http.ReadResponse(bufio.NewReader(extra), nil)
		answered <- err
	}()
	select {
	case err := <-answered:
		t.Fatalf("a third connection was served past a bound of 2: %v", err)
	case <-time.After(200 * time.Millisecond):
	}
	held[0].Close()
	select {
	case err := <-answered:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the third connection was not served once one closed")
	}
	srv.Close()
	select {
	case <-served:
	case <-time.After(5 * time.Second):
		t.Fatal("Serve did not return after Close")
	}
}
