package rest

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"

	"github.com/danielgtaylor/huma/v2"

	venue "github.com/gridvenue/venue"
)

// OperationEntry is a catalog entry as listed.
type OperationEntry struct {
	Name        string          `json:"name" doc:"Display name, adapter:op (not a reference)" example:"secret:set"`
	Path        string          `json:"path" doc:"Catalog path, the reference to invoke" example:"v/ops/secret/set"`
	Title       string          `json:"title,omitempty" doc:"A human title" example:"Store Secret"`
	Description string          `json:"description" doc:"What the operation does"`
	Keywords    []string        `json:"keywords,omitempty" doc:"Words a search for the operation may use" example:"[\"secret\",\"credential\"]"`
	Adapter     string          `json:"adapter" doc:"The adapter family that runs it" example:"secret"`
	Asset       string          `json:"asset" doc:"Id of the operation's metadata as an asset"`
	Input       json.RawMessage `json:"input" doc:"JSON Schema of the input"`
	Output      json.RawMessage `json:"output,omitempty" doc:"JSON Schema of the output"`
}

// ListOperationsOutput is the catalog.
type ListOperationsOutput struct {
	Body []OperationEntry
}

// GetOperationInput names an operation.
type GetOperationInput struct {
	Name string `path:"name" doc:"A catalog path (v/ops/secret/set, slashes may stay unencoded), any other operation reference, or a display name (secret:set)"`
}

// GetOperationOutput is one operation, with its full metadata.
type GetOperationOutput struct {
	Body struct {
		OperationEntry
		Metadata json.RawMessage `json:"metadata" doc:"The operation's metadata as registered"`
	}
}

func (s *Server) registerOperations() {
	huma.Register(s.api, s.op("list-operations", http.MethodGet, "/api/v1/operations", "List the catalog", "Operations"), s.listOperations)
	huma.Register(s.api, s.documentErrors(s.op("get-operation", http.MethodGet, "/api/v1/operations/{name}", "Describe one operation", "Operations"),
		map[string]string{"404": "No operation has that name or reference, as the caller sees them"}), s.getOperation)
}

// Bridged lists the operations beyond the catalog that the caller in ctx
// may invoke: the tools of the MCP servers it, or the venue, bridged in.
type Bridged interface {
	BridgedOperations(ctx context.Context) ([]*venue.Operation, error)
}

// SetBridged makes the operations listing and the status count include
// each caller's bridged operations (user scope o/mcp/<name>/<tool>, venue
// scope v/ops/mcp/<name>/<tool>). Call it before serving.
func (s *Server) SetBridged(b Bridged) { s.bridged = b }

// bridgedOps returns the caller's bridged operations; none when there is no
// lister or the caller may not read them.
func (s *Server) bridgedOps(ctx context.Context) []*venue.Operation {
	if s.bridged == nil {
		return nil
	}
	ops, err := s.bridged.BridgedOperations(ctx)
	if err != nil {
		if code := venue.ErrorCode(err); code != venue.EFORBIDDEN && code != venue.EUNAUTHORIZED {
			s.log.Warn("list bridged operations", "err", err)
		}
		return nil
	}
	return ops
}

func (s *Server) listOperations(ctx context.Context, _ *struct{}) (*ListOperationsOutput, error) {
	ops := append(slices.Clip(s.e.Operations()), s.bridgedOps(ctx)...)
	out := &ListOperationsOutput{Body: make([]OperationEntry, len(ops))}
	for i, op := range ops {
		out.Body[i] = entryOf(op)
	}
	return out, nil
}

func (s *Server) getOperation(ctx context.Context, in *GetOperationInput) (*GetOperationOutput, error) {
	op, err := s.e.Operation(ctx, in.Name)
	if venue.ErrorCode(err) == venue.ENOTFOUND && (strings.HasPrefix(in.Name, "mcp:") || strings.HasPrefix(in.Name, "o:")) {
		// A bridged tool or a pin by the display name the listing gives it.
		for _, b := range s.bridgedOps(ctx) {
			if displayName(b) == in.Name {
				op, err = b, nil
				break
			}
		}
	}
	if err != nil {
		return nil, toAPI(err)
	}
	out := &GetOperationOutput{}
	out.Body.OperationEntry, out.Body.Metadata = entryOf(op), op.Meta
	return out, nil
}

// bridgedAdapter is the adapter of every bridged MCP tool.
const bridgedAdapter = "mcp:call"

// displayName is the name an entry lists: the catalog's "adapter:op", a
// pin's "o:<name>" (runtime.PinnedOperations), or for a bridged tool
// "mcp:<its tool name>", since every bridged tool has the one adapter
// mcp:call and the names of a listing must tell them apart (and each must
// answer GET /api/v1/operations/{name}).
func displayName(op *venue.Operation) string {
	if op.Name == bridgedAdapter && op.ToolName != "" {
		return "mcp:" + op.ToolName
	}
	return op.Name
}

func entryOf(op *venue.Operation) OperationEntry {
	input := op.Input
	if len(input) == 0 {
		input = json.RawMessage(`{}`)
	}
	return OperationEntry{Name: displayName(op), Path: op.Path, Title: op.Title, Description: strings.TrimSpace(op.Description),
		Keywords: op.Keywords, Adapter: op.Adapter, Asset: op.Asset.String(), Input: input, Output: op.Output}
}
