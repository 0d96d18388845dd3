package venue

import (
	"strings"
	"unicode"
)

// SnakeCase is the venue's rule for MCP tool names, shared by the MCP door
// (catalog tools, and incoming names) and the MCP bridge (bridged tools):
// ':', '/', '-', '.' and spaces become '_', and a lower-to-upper step
// becomes '_' + lower ("agent:cancelTask" → "agent_cancel_task",
// "getTinyImage" → "get_tiny_image"). It is idempotent.
func SnakeCase(s string) string {
	var b strings.Builder
	prevLower := false
	for _, r := range s {
		switch {
		case r == ':' || r == '/' || r == '-' || r == '.' || r == ' ':
			b.WriteByte('_')
			prevLower = false
		case unicode.IsUpper(r):
			if prevLower {
				b.WriteByte('_')
			}
			b.WriteRune(unicode.ToLower(r))
			prevLower = false
		default:
			b.WriteRune(r)
			prevLower = unicode.IsLower(r) || unicode.IsDigit(r)
		}
	}
	return b.String()
}
