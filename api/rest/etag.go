package rest

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"

	"github.com/danielgtaylor/huma/v2"
)

// etagOf is the strong entity tag of a value read whole: the SHA-256 of
// its JSON, written as the reference venue writes its ETags ("0x<hex>").
func etagOf(value []byte) string {
	return hashTag(sha256.Sum256(value))
}

// hashTag is the entity tag of bytes with SHA-256 sum.
func hashTag(sum [32]byte) string {
	return `"0x` + hex.EncodeToString(sum[:]) + `"`
}

// Conditional is the If-None-Match of a read that answers 304 while the
// caller holds what it would send.
type Conditional struct {
	IfNoneMatch string `header:"If-None-Match" doc:"ETags the caller holds (or *): when one matches, the answer is 304 with no body"`
}

// Resolve gathers every If-None-Match line: a list header may be sent as
// several lines, of which Huma reads only the first.
func (in *Conditional) Resolve(ctx huma.Context) []error {
	var lines []string
	ctx.EachHeader(func(name, value string) {
		if strings.EqualFold(name, "If-None-Match") {
			lines = append(lines, value)
		}
	})
	in.IfNoneMatch = strings.Join(lines, ",")
	return nil
}

// matches reports whether the caller holds the representation tagged etag.
func (in *Conditional) matches(etag string) bool { return noneMatch(in.IfNoneMatch, etag) }

// noneMatch reports whether an If-None-Match field value (its lines joined
// with commas) matches etag, as RFC 9110 section 13.1.2 evaluates it: "*"
// matches any current representation, and entity tags compare weakly, so
// a W/ prefix does not matter. Members that are not entity tags are
// skipped, so that one malformed tag cannot hide a matching one.
func noneMatch(field, etag string) bool {
	for rest := field; ; {
		rest = strings.TrimLeft(rest, " \t,")
		if rest == "" {
			return false
		}
		var member string
		member, rest = nextMember(rest)
		if member == "*" || strings.TrimPrefix(member, "W/") == etag {
			return true
		}
	}
}

// nextMember splits the first member off a list of entity tags. A quoted
// tag may hold commas, so the member ends at its closing quote; anything
// else ends at the next comma.
func nextMember(list string) (member, rest string) {
	opaque := strings.TrimPrefix(list, "W/")
	if strings.HasPrefix(opaque, `"`) {
		if end := strings.IndexByte(opaque[1:], '"'); end >= 0 {
			n := len(list) - len(opaque) + end + 2
			return list[:n], list[n:]
		}
	}
	member, rest, _ = strings.Cut(list, ",")
	return strings.TrimRight(member, " \t"), rest
}

// notModified documents the 304 of a conditional read, which carries the
// ETag and the other headers named that the 200 has, and no body.
func notModified(headers ...string) *huma.Response {
	str := &huma.Schema{Type: "string"}
	r := &huma.Response{Description: "Not Modified: If-None-Match names the current ETag",
		Headers: map[string]*huma.Param{"ETag": {Schema: str}}}
	for _, h := range headers {
		r.Headers[h] = &huma.Param{Schema: str}
	}
	return r
}
