package rawhttp

import (
	"bufio"
	"bytes"
	"fmt"
	"strconv"
)

// ReadHead reads a response's status line and headers from r, calling
// header with each header's name and trimmed value (valid only during the
// call), and returns the status code.
func ReadHead(r *bufio.Reader, header func(name, value []byte)) (int, error) {
	line, err := r.ReadSlice('\n')
	if err != nil {
		return 0, err
	}
	if len(line) < 12 || !bytes.HasPrefix(line, []byte("HTTP/1.1 ")) {
		return 0, fmt.Errorf("bad status line %q", line)
	}
	status, err := strconv.Atoi(string(line[9:12]))
	if err != nil {
		return 0, fmt.Errorf("bad status line %q", line)
	}
	for {
		line, err := r.ReadSlice('\n')
		if err != nil {
			return 0, err
		}
		name, value, ok := bytes.Cut(bytes.TrimSpace(line), []byte(":"))
		if !ok {
			return status, nil // the blank line that ends the headers
		}
		header(name, bytes.TrimSpace(value))
	}
}
