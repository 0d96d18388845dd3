package venue

import (
	"context"
	"errors"
	"fmt"
)

// Error codes. Each door maps a code to its wire form exactly once
// (an HTTP status, a JSON-RPC code, an MCP tool error).
const (
	EINVALID      = "invalid"      // the request is malformed or breaks a rule
	EUNAUTHORIZED = "unauthorized" // no acceptable credentials were presented
	EFORBIDDEN    = "forbidden"    // the caller lacks a capability
	ENOTFOUND     = "not_found"    // the thing asked for does not exist for this caller
	ECONFLICT     = "conflict"     // the thing exists but its state forbids the request
	ETOOLARGE     = "too_large"    // a body, value or output exceeds a limit
	ETOOMANY      = "too_many"     // the caller has too much under way already
	EUNAVAILABLE  = "unavailable"  // a dependency is down or the venue is shutting down
	ETIMEOUT      = "timeout"      // a deadline passed
	EINTERNAL     = "internal"     // a bug or an unexpected failure
)

// Error is the venue's one coded error. Message is safe to show to the caller:
// it never holds a secret value.
type Error struct {
	Code    string
	Message string
}

// Error returns the message.
func (e *Error) Error() string { return e.Message }

// Errorf returns an *Error with the given code and a formatted message.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// ErrorCode returns the code of the first *Error in err's chain,
// EUNAVAILABLE or ETIMEOUT for a context that ended (see ended), EINTERNAL
// for any other non-nil error, and "" for nil.
func ErrorCode(err error) string {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) && e != nil {
		return e.Code
	}
	if e := ended(err); e != nil {
		return e.Code
	}
	return EINTERNAL
}

// ErrorMessage returns the message of the first *Error in err's chain.
// Other errors are internal: their text may hold details the caller must not
// see, so they read as "Internal error".
func ErrorMessage(err error) string {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) && e != nil {
		return e.Message
	}
	if e := ended(err); e != nil {
		return e.Message
	}
	return "Internal error"
}

// ended words the error of a context that ended before the work did: the
// caller went away (or the venue is shutting down), or a deadline passed.
// Neither is a bug of the venue's, so neither is an internal error.
func ended(err error) *Error {
	switch {
	case errors.Is(err, context.Canceled):
		return &Error{Code: EUNAVAILABLE, Message: "The request was cancelled before it finished: the client closed its connection or the venue is shutting down"}
	case errors.Is(err, context.DeadlineExceeded):
		return &Error{Code: ETIMEOUT, Message: "The request's deadline passed before it finished"}
	}
	return nil
}
