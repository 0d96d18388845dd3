package mcpserver

import (
	"net/http"
	"strings"
	"sync"
	"time"
)

// keepAlive writes an SSE comment on a GET stream every interval while the
// SDK has nothing to send, as the reference venue does every 30 s: proxies
// and load balancers close a connection idle for a minute or so, and the
// client then misses the notifications (tools/list_changed) until it
// reconnects. Writes of the SDK and of the ticker take turns under mu.
type keepAlive struct {
	http.ResponseWriter
	mu     sync.Mutex
	live   bool    // a 200 event stream has begun
	wrote  bool    // the header is written
	closed bool    // the handler returned: the writer must not be used
	tail   [2]byte // the last two bytes written: a comment goes only between events ("\n\n")
	n      int     // bytes written, up to 2
}

// withKeepAlive serves a GET stream through next with comments every
// interval; it returns once next does.
func withKeepAlive(w http.ResponseWriter, r *http.Request, interval time.Duration, next func(http.ResponseWriter, *http.Request)) {
	k := &keepAlive{ResponseWriter: w}
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(interval)
		defer tick.Stop()
		for {
			select {
			case <-tick.C:
				k.comment()
			case <-stop:
				return
			case <-r.Context().Done():
				return
			}
		}
	}()
	next(k, r)
	close(stop)
	<-done
	k.mu.Lock()
	k.closed = true
	k.mu.Unlock()
}

func (k *keepAlive) WriteHeader(code int) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.header(code)
}

// header writes the header once. Call with k.mu held.
func (k *keepAlive) header(code int) {
	if k.wrote {
		return
	}
	k.wrote = true
	k.live = code == http.StatusOK && strings.HasPrefix(k.Header().Get("Content-Type"), "text/event-stream")
	k.ResponseWriter.WriteHeader(code)
}

func (k *keepAlive) Write(p []byte) (int, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.header(http.StatusOK)
	for _, b := range p[max(0, len(p)-2):] {
		k.tail[0], k.tail[1] = k.tail[1], b
		k.n = min(k.n+1, 2)
	}
	return k.ResponseWriter.Write(p)
}

// between reports whether the stream stands between events. Call with
// k.mu held.
func (k *keepAlive) between() bool {
	return k.n == 0 || (k.n == 2 && k.tail == [2]byte{'\n', '\n'})
}

func (k *keepAlive) Flush() {
	k.mu.Lock()
	defer k.mu.Unlock()
	http.NewResponseController(k.ResponseWriter).Flush()
}

// Unwrap lets http.ResponseController reach the real writer.
func (k *keepAlive) Unwrap() http.ResponseWriter { return k.ResponseWriter }

// comment writes a keep-alive comment if the stream has begun.
func (k *keepAlive) comment() {
	k.mu.Lock()
	defer k.mu.Unlock()
	if !k.live || k.closed || !k.between() {
		return
	}
	if _, err := k.ResponseWriter.Write([]byte(": keepalive\n\n")); err == nil {
		http.NewResponseController(k.ResponseWriter).Flush()
	}
}
