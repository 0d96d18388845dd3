package wasm

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/tetratelabs/wazero/sys"

	venue "github.com/gridvenue/venue"
)

// failure words why a call into a guest failed. The job's deadline or
// cancellation comes first: the engine words those itself from the cause.
// Then a misuse of the host module, then running out of memory, then the
// guest's exit or trap.
func (h *Host) failure(ctx context.Context, err error, stderr string, memSize uint32) error {
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	var trap *hostTrap
	if errors.As(err, &trap) {
		return crashed("%s", trap.msg)
	}
	if outOfMemory(stderr, memSize, h.cfg.memoryLimit()) {
		return venue.Errorf(venue.ETOOLARGE, "operation ran out of memory (limit %d MiB)", h.cfg.memoryLimit()>>20)
	}
	var exit *sys.ExitError
	if errors.As(err, &exit) {
		return crashed("%s", exitReason(exit.ExitCode(), stderr))
	}
	if errors.Is(err, errCallDepth) {
		return crashed("%s: its call stack reached the limit of %d slots (about 8 MiB), as a recursion without end does", errCallDepth, maxStackSlots)
	}
	if errors.Is(err, errInterpretedDepth) {
		return crashed("%s: a new module's calls run on wazero's interpreter while it compiles, which nests calls at most %d deep; once compiled (in a second or two), the limit is %d slots (about 8 MiB)", errInterpretedDepth, interpreterFrames, maxStackSlots)
	}
	return crashed("%s", trapReason(err, stderr))
}

// refusal is the venue's refusal of a host call: the words the guest was
// given, and the code they had.
type refusal struct{ code, msg string }

// maxRefusals bounds the refusals a call remembers: a guest passes on the
// one that made it give up, which is among its last.
const maxRefusals = 8

// refusal remembers err, the venue's refusal of one of this call's host
// calls, and returns the words the guest gets.
func (c *callState) refusal(err error) string {
	msg := message(err)
	if len(c.refused) == maxRefusals {
		c.refused = append(c.refused[:0], c.refused[1:]...)
	}
	c.refused = append(c.refused, refusal{code: venue.ErrorCode(err), msg: msg})
	return msg
}

// guestFailure is the job's error for the failure a guest reported in msg.
// A guest that passes on the venue's refusal of one of its host calls in
// this call (verbatim, or after words of its own and ": ") keeps the
// refusal's code, so a capability denied inside Wasm ends the job the way
// it does anywhere else (EFORBIDDEN, EUNAUTHORIZED, ENOTFOUND, ...). The
// guest can claim no code the host did not give it; any other report is
// EINVALID, the operation's own verdict on its input.
func (c *callState) guestFailure(msg string) error {
	for i := len(c.refused) - 1; i >= 0; i-- {
		if r := c.refused[i]; msg == r.msg || strings.HasSuffix(msg, ": "+r.msg) {
			return venue.Errorf(r.code, "%s", msg)
		}
	}
	return venue.Errorf(venue.EINVALID, "%s", msg)
}

// trapReason is wazero's first line ("wasm error: unreachable"), after what
// the guest said on stderr as it died (a Go reactor prints its panic, then
// traps).
func trapReason(err error, stderr string) string {
	reason := firstLine(err.Error())
	if line := firstLine(stderr); line != "" {
		reason = line + " (" + reason + ")"
	}
	return reason
}

// outOfMemory guesses whether a guest died for want of memory: wazero only
// refuses its memory.grow, which guests report in their own ways. The Go
// runtime says so on stderr, in a line of its own; other guests (and Go,
// sometimes) just trap, saying nothing. Memory allocators grow in steps
// (Go: 4 MiB arenas), so a guest that dies silently within a step or an
// eighth of the limit is taken to have hit it. A guest that says why it
// failed, in other words, is believed: its message is the job's error.
func outOfMemory(stderr string, memSize uint32, limit uint64) bool {
	for line := range strings.Lines(stderr) {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "fatal error: out of memory") || strings.HasPrefix(line, "runtime: out of memory") {
			return true
		}
	}
	margin := max(limit/8, 8<<20)
	return strings.TrimSpace(stderr) == "" && limit > margin && uint64(memSize) >= limit-margin
}

func exitReason(code uint32, stderr string) string {
	reason := fmt.Sprintf("the module exited with code %d", code)
	if line := firstLine(stderr); line != "" {
		reason += ": " + line
	}
	return reason
}

// firstLine is the first non-blank line of s, bounded: wazero's errors
// carry a stack trace after it, and a Go panic its goroutine dump.
func firstLine(s string) string {
	for line := range strings.Lines(s) {
		if line = strings.TrimSpace(line); line != "" {
			if len(line) > 1024 {
				line = strings.ToValidUTF8(line[:1024], "") + "…"
			}
			return line
		}
	}
	return ""
}

// crashed is the job's error for a guest that trapped or broke the ABI.
func crashed(format string, args ...any) error {
	return venue.Errorf(venue.EINTERNAL, "operation crashed: %s", fmt.Sprintf(format, args...))
}

// capture is an io.Writer that keeps the first limit bytes written to it
// and counts the rest.
type capture struct {
	limit int
	total int64
	buf   bytes.Buffer
	full  func() // if set, called once when more than limit bytes have come
}

func (c *capture) Write(p []byte) (int, error) {
	was := c.over()
	c.total += int64(len(p))
	if c.full != nil && !was && c.over() {
		c.full()
	}
	if room := c.limit - c.buf.Len(); room > 0 {
		c.buf.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}

// over reports whether more than limit bytes were written.
func (c *capture) over() bool { return c.total > int64(c.limit) }

// Reset forgets everything written.
func (c *capture) Reset() { c.total = 0; c.buf.Reset() }

// String returns what was kept, trimmed, with "…" if some was dropped.
func (c *capture) String() string {
	s := strings.TrimSpace(strings.ToValidUTF8(c.buf.String(), ""))
	if c.over() {
		s += "…"
	}
	return s
}
