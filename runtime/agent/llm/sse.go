package llm

import (
	"bufio"
	"strings"
)

// events splits a Server-Sent Events body into its data payloads, joining
// multi-line data and skipping comments and the OpenAI "[DONE]" marker.
func events(body string) []string {
	var out []string
	var data []string
	flush := func() {
		if len(data) > 0 {
			if d := strings.Join(data, "\n"); d != "[DONE]" {
				out = append(out, d)
			}
			data = nil
		}
	}
	sc := bufio.NewScanner(strings.NewReader(body))
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for sc.Scan() {
		line := strings.TrimSuffix(sc.Text(), "\r")
		switch {
		case line == "":
			flush()
		case strings.HasPrefix(line, "data:"):
			data = append(data, strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " "))
		}
	}
	flush()
	return out
}
