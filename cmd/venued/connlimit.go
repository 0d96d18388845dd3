package main

import (
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// connLimit bounds the connections the venue serves at once. Each holds an
// open file, a goroutine and its buffers, and a client may hold one for a
// long time within every timeout: a header line every 9 s, a body byte
// every 29 s, an event stream nobody reads fast. An audit's 20,000 such
// connections used up the process's open files, after which the store,
// outbound HTTP and the listener itself failed. Past the bound the listener
// stops accepting until a connection closes: new clients wait in the
// kernel's backlog, and the files the store and outbound calls need stay
// free.
type connLimit struct {
	net.Listener
	slots     chan struct{}
	done      chan struct{} // closed with the listener: Accept stops waiting
	closeOnce sync.Once
	log       *slog.Logger
	warned    atomic.Int64 // unix time of the last warning
}

func newConnLimit(ln net.Listener, n int, log *slog.Logger) *connLimit {
	return &connLimit{Listener: ln, slots: make(chan struct{}, n), done: make(chan struct{}), log: log}
}

// Accept waits for a free slot, then for a connection.
func (l *connLimit) Accept() (net.Conn, error) {
	select {
	case l.slots <- struct{}{}:
	default:
		l.warn()
		select {
		case l.slots <- struct{}{}:
		case <-l.done:
			return nil, net.ErrClosed
		}
	}
	c, err := l.Listener.Accept()
	if err != nil {
		<-l.slots
		return nil, err
	}
	return &limitedConn{Conn: c, free: func() { <-l.slots }}, nil
}

// open is how many connections are served now (and a slot an Accept
// holds while it waits for the next).
func (l *connLimit) open() int { return len(l.slots) }

func (l *connLimit) Close() error {
	l.closeOnce.Do(func() { close(l.done) })
	return l.Listener.Close()
}

// warn tells the operator, at most once a minute, that clients wait.
func (l *connLimit) warn() {
	now, last := time.Now().Unix(), l.warned.Load()
	if now-last < 60 || !l.warned.CompareAndSwap(last, now) {
		return
	}
	l.log.Warn("the venue serves as many connections as it allows (maxConnections); new ones wait until one closes", "maxConnections", cap(l.slots))
}

// limitedConn gives its slot back once, however often it is closed.
type limitedConn struct {
	net.Conn
	once sync.Once
	free func()
}

func (c *limitedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.free)
	return err
}
