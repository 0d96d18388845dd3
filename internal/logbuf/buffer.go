package logbuf

import (
	"bytes"
	"sync"
)

// Buffer is a bytes.Buffer that goroutines may write and read at once:
// a server logs from goroutines of its own (a compile's end, a job's), and
// a test reading a plain buffer meanwhile is a data race.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *Buffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// String returns what has been written so far.
func (s *Buffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
