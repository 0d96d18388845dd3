package mcpserver

import (
	"encoding/json"
	"net/http"
)

// Discovery serves /.well-known/mcp.json and /.well-known/mcp: where the
// venue's MCP endpoint is and which transport it speaks. The spec names the
// first; the reference venue and its TypeScript SDK read the second.
func (s *Server) Discovery() http.Handler {
	body, _ := json.Marshal(map[string]any{
		"mcp_version":    "1.0",
		"name":           ServerName,
		"description":    s.opts.Name,
		"version":        s.opts.Version,
		"server_url":     s.e.Identity().BaseURL + "/mcp",
		"endpoint":       map[string]string{"path": "/mcp", "transport": "streamable-http"},
		"capabilities":   map[string]any{"tools": map[string]any{}},
		"authentication": map[string]any{"type": "bearer", "required": false},
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			writeError(w, http.StatusMethodNotAllowed, "Endpoint "+r.Method+" "+r.URL.Path+" not allowed: use GET")
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write(body)
	})
}

func writeError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]string{"error": msg})
}
