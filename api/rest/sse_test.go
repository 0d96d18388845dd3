package rest

import "testing"

// TestAcceptsEventStream reads Accept as RFC 9110 does: media types in any
// letter case, ranges that cover text/event-stream, and q=0 as a refusal.
func TestAcceptsEventStream(t *testing.T) {
	for _, tc := range []struct {
		name, accept string
		want         bool
	}{
		{"absent", "", true},
		{"the type", "text/event-stream", true},
		{"in another letter case", "Text/Event-Stream", true},
		{"any text", "text/*", true},
		{"anything", "*/*", true},
		{"among others, with parameters", "application/json;q=0.9, text/event-stream;q=0.5", true},
		{"only JSON", "application/json", false},
		{"refused with q=0", "text/event-stream;q=0", false},
		{"refused by name, though anything else is fine", "text/event-stream; q=0.0, */*", false},
		{"anything but text", "text/*;q=0, */*", false},
		{"text refused, the type named", "text/*;q=0, text/event-stream", true},
		{"a longer type that merely begins alike", "text/event-streams", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := acceptsEventStream(tc.accept); got != tc.want {
				t.Fatalf("acceptsEventStream(%q) = %v, want %v", tc.accept, got, tc.want)
			}
		})
	}
}
