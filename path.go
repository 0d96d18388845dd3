package venue

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Lattice namespaces. Each caller sees its own w, o, j, g and s; v and a are
// shared by the venue.
const (
	NSVenue     = "v" // the venue: catalog (v/ops), test ops (v/test/ops), info
	NSWorkspace = "w" // the caller's workspace
	NSPins      = "o" // the caller's operation pins
	NSJobs      = "j" // the caller's jobs
	NSAgents    = "g" // the caller's agents, g/<agentId>/...
	NSSecrets   = "s" // the caller's secrets: references only, never values
	NSAssets    = "a" // assets, a/<hash>
)

// MaxPathLen bounds a lattice path so a hostile one cannot make us split or
// store megabytes.
const MaxPathLen = 1024

// Path is a parsed lattice path: a namespace and the segments below it.
type Path struct {
	Segments []string
}

// HasDotSegment reports whether a slash path has a "." or ".." segment. No
// name the venue gives (lattice path, reference, URL path) has one, and
// each door or resolver that meets one refuses it rather than let it step
// somewhere else.
func HasDotSegment(p string) bool {
	for seg := range strings.SplitSeq(p, "/") {
		if dotSegment(seg) {
			return true
		}
	}
	return false
}

func dotSegment(seg string) bool { return seg == "." || seg == ".." }

// ParsePath reads a lattice path such as "w/notes/today" or "/v/ops".
// One leading slash is allowed; empty segments ("a//b", a trailing "/"),
// "." and ".." segments, control characters and unknown namespaces are not.
// Returns EINVALID with a message naming what to fix.
func ParsePath(s string) (Path, error) {
	if s == "" {
		return Path{}, Errorf(EINVALID, "Lattice path is empty: give a path such as w/notes or v/ops")
	}
	if len(s) > MaxPathLen {
		return Path{}, Errorf(EINVALID, "Lattice path is too long: %d bytes, the limit is %d", len(s), MaxPathLen)
	}
	segs := strings.Split(strings.TrimPrefix(s, "/"), "/")
	for _, seg := range segs {
		switch {
		case seg == "":
			return Path{}, Errorf(EINVALID, "Lattice path %q has an empty segment: remove the doubled or trailing '/'", clip(s))
		case dotSegment(seg):
			return Path{}, Errorf(EINVALID, "Lattice path %q contains %q: paths are absolute and may not step up or sideways", clip(s), seg)
		case !utf8.ValidString(seg) || strings.ContainsFunc(seg, unicode.IsControl):
			return Path{}, Errorf(EINVALID, "Lattice path %q contains a control character or invalid UTF-8: remove it", clip(s))
		case strings.ContainsRune(seg, utf8.RuneError):
			// What an escape of a lone surrogate (\ud800) decodes to in a
			// JSON input, where the REST door refuses its UTF-8 bytes:
			// every such escape would name the same path.
			return Path{}, Errorf(EINVALID, "Lattice path %q contains U+FFFD, the replacement character, which stands for text that was not valid: write the character meant", clip(s))
		}
	}
	if !KnownNamespace(segs[0]) {
		return Path{}, Errorf(EINVALID, "Lattice path %q starts with unknown namespace %q: use one of v, w, o, j, g, s, a", clip(s), clip(segs[0]))
	}
	return Path{Segments: segs}, nil
}

// KnownNamespace reports whether ns is one of the lattice namespaces.
func KnownNamespace(ns string) bool {
	switch ns {
	case NSVenue, NSWorkspace, NSPins, NSJobs, NSAgents, NSSecrets, NSAssets:
		return true
	}
	return false
}

// Namespace returns the first segment.
func (p Path) Namespace() string { return p.Segments[0] }

// String joins the segments with '/'.
func (p Path) String() string { return strings.Join(p.Segments, "/") }

// Child returns p extended by one segment.
func (p Path) Child(seg string) Path {
	s := make([]string, len(p.Segments), len(p.Segments)+1)
	copy(s, p.Segments)
	return Path{Segments: append(s, seg)}
}
