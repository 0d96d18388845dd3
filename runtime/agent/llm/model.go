package llm

import (
	"context"
	"encoding/json"
	"strings"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/runtime"
)

// Message is one turn sent to a model.
type Message struct {
	Role       string     `json:"role"` // system, user, assistant, tool
	Content    string     `json:"content"`
	ToolCalls  []ToolCall `json:"toolCalls,omitempty"`
	ToolCallID string     `json:"toolCallId,omitempty"`
}

// ToolCall is a call the model asks for.
type ToolCall struct {
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// Tool is a tool offered to the model.
type Tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

// Request is one model call (the input of llm:chat).
type Request struct {
	Provider       string          `json:"provider,omitempty"` // openai (default) or anthropic
	BaseURL        string          `json:"baseUrl"`            // default the provider's public API
	Model          string          `json:"model"`              //
	APIKeySecret   string          `json:"apiKeySecret"`       // default OPENAI_API_KEY / ANTHROPIC_API_KEY
	System         string          `json:"system"`
	Messages       []Message       `json:"messages"`
	Tools          []Tool          `json:"tools,omitempty"`
	ResponseSchema json.RawMessage `json:"responseSchema,omitempty"`
	Stream         bool            `json:"stream"`
	MaxTokens      int             `json:"maxTokens,omitempty"`
}

// Response is the model's answer (the output of llm:chat).
type Response struct {
	Role      string     `json:"role"`
	Content   string     `json:"content"`
	ToolCalls []ToolCall `json:"toolCalls"`
}

// provider is one wire protocol.
type provider struct {
	name, baseURL, secret string
	call                  func(ctx context.Context, env *runtime.Env, req *Request, key string) (*Response, error)
}

var providers = map[string]provider{
	"openai":    {"openai", "https://api.openai.com/v1", "OPENAI_API_KEY", callOpenAI},
	"anthropic": {"anthropic", "https://api.anthropic.com/v1", "ANTHROPIC_API_KEY", callAnthropic},
}

// providerOf returns req's wire protocol.
// Returns EINVALID for an unknown provider.
func providerOf(req *Request) (provider, error) {
	p, ok := providers[strings.ToLower(cmp(req.Provider, "openai"))]
	if !ok {
		return p, venue.Errorf(venue.EINVALID, "Unknown provider '%s': use openai (or any OpenAI-compatible API with baseUrl) or anthropic", req.Provider)
	}
	return p, nil
}

// keyName is the name of the secret holding req's key: apiKeySecret, else
// the provider's default.
func (p provider) keyName(req *Request) string {
	return strings.TrimPrefix(cmp(req.APIKeySecret, p.secret), "s/")
}

// Sent is what a model call sends: the provider's request body, or, for an
// agent's own model (llmOperation), that operation's input. agent:context
// shows this, so it is built by the code that builds what is sent.
func Sent(req *Request, llmOp string) (map[string]any, error) {
	if llmOp != "" {
		var m map[string]any
		b, _ := json.Marshal(req)
		return m, json.Unmarshal(b, &m)
	}
	p, err := providerOf(req)
	if err != nil {
		return nil, err
	}
	if p.name == "anthropic" {
		return anthropicBody(req), nil
	}
	return openAIBody(req), nil
}

// Call sends req to its provider with the caller's key. The key never
// leaves the venue's outbound request: it is passed by secret reference
// and masked in every record of the job.
// Returns EINVALID for an unknown provider or a missing key (the spec's
// "API key not found" message), EUNAVAILABLE when the provider fails.
func Call(ctx context.Context, env *runtime.Env, req *Request) (*Response, error) {
	p, err := providerOf(req)
	if err != nil {
		return nil, err
	}
	secret := p.keyName(req)
	if _, err := env.Secret(ctx, secret); err != nil {
		if venue.ErrorCode(err) == venue.ENOTFOUND {
			if err := checkKeyName(secret); err != nil {
				return nil, err
			}
			return nil, venue.Errorf(venue.EINVALID, "API key not found for provider '%s' at /s/%s", p.name, secret)
		}
		return nil, err
	}
	req.BaseURL = strings.TrimSuffix(cmp(req.BaseURL, p.baseURL), "/")
	return p.call(ctx, env, req, "s/"+secret)
}

func cmp(v, def string) string {
	if v == "" {
		return def
	}
	return v
}

// post sends a JSON body and returns the response body, failing on a
// non-2xx status with the provider's own message.
func post(ctx context.Context, env *runtime.Env, hreq runtime.HTTPRequest, provider string) (string, error) {
	hreq.Method = "POST"
	if hreq.Headers == nil {
		hreq.Headers = map[string]string{}
	}
	hreq.Headers["Content-Type"] = "application/json"
	resp, err := env.HTTP(ctx, hreq)
	if err != nil {
		return "", err
	}
	if resp.Status/100 != 2 {
		var e struct {
			Error struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		json.Unmarshal([]byte(resp.Body), &e)
		msg := cmp(e.Error.Message, clip(resp.Body))
		return "", venue.Errorf(venue.EUNAVAILABLE, "Provider '%s' answered %d: %s", provider, resp.Status, msg)
	}
	return resp.Body, nil
}

func clip(s string) string {
	if len(s) > 200 {
		return s[:200] + "..."
	}
	return s
}

// chatOp is llm:chat: one model call as an operation, which is also how an
// agent brings its own model (config llmOperation names an operation with
// this input and output).
func chatOp(ctx context.Context, in json.RawMessage, env *runtime.Env) (json.RawMessage, error) {
	var req Request
	if err := json.Unmarshal(in, &req); err != nil {
		return nil, venue.Errorf(venue.EINVALID, "Input does not fit llm:chat: %v", err)
	}
	resp, err := Call(ctx, env, &req)
	if err != nil {
		return nil, err
	}
	return json.Marshal(resp)
}
