package docsui_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/danielgtaylor/huma/v2"
	"github.com/danielgtaylor/huma/v2/adapters/humago"
	"github.com/danielgtaylor/huma/v2/sse"

	"github.com/gridvenue/venue/api/rest/docsui"
)

// The sample API imitates the venue's REST surface closely enough to make
// Huma emit every 3.1 construct the venue will: nested objects, enums, free
// JSON, nullable scalars and arrays, exclusive bounds, dependentRequired,
// patternDescription, and the const of an SSE operation.

type Stats struct {
	Assets int `json:"assets" minimum:"0" doc:"Number of stored assets" example:"12"`
	Users  int `json:"users" minimum:"0" doc:"Number of known users" example:"3"`
	Ops    int `json:"ops" minimum:"0" doc:"Number of registered operations" example:"40"`
}

type StatusOutput struct {
	Body struct {
		DID   string `json:"did" doc:"The venue's DID" example:"did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK"`
		URL   string `json:"url" format:"uri" doc:"Public base URL" example:"https://venue.example/api/v1"`
		Stats Stats  `json:"stats" doc:"Counts of stored things"`
	}
}

type InvokeInput struct {
	Body struct {
		Operation string          `json:"operation" minLength:"1" pattern:"^[a-z]" patternDescription:"starts with a lower-case letter" doc:"Operation to run" example:"core:echo"`
		Input     json.RawMessage `json:"input,omitempty" doc:"Input for the operation, any JSON"`
		Wait      *bool           `json:"wait,omitempty" doc:"Wait for the final job record"`
		Timeout   float64         `json:"timeout,omitempty" exclusiveMinimum:"0" dependentRequired:"wait" doc:"Seconds to wait" example:"2.5"`
		UCANs     []string        `json:"ucans,omitempty" doc:"UCAN tokens proving authority"`
	}
}

type Job struct {
	ID        string     `json:"id" doc:"Job ID" example:"0x1234"`
	Status    string     `json:"status" enum:"PENDING,STARTED,COMPLETE,FAILED,CANCELLED" doc:"Lifecycle state"`
	Created   time.Time  `json:"created" doc:"Creation time"`
	Operation string     `json:"operation" doc:"Operation invoked"`
	Output    any        `json:"output,omitempty" doc:"Result, any JSON"`
	Error     *string    `json:"error,omitempty" nullable:"true" doc:"Failure message, null unless FAILED"`
	Updated   *time.Time `json:"updated,omitempty" doc:"Last change"`
	Tags      []string   `json:"tags" doc:"Labels; Huma makes arrays nullable"`
}

type JobOutput struct {
	Body Job
}

type JobIDInput struct {
	ID string `path:"id" doc:"Job ID" example:"0x1234"`
}

// mustSampleAPI returns the fixed 3.0 document of the sample API.
func mustSampleAPI(tb testing.TB) []byte {
	tb.Helper()
	api := humago.New(http.NewServeMux(), huma.DefaultConfig("Venue", "0.5.0"))
	huma.Register(api, huma.Operation{OperationID: "get-status", Method: http.MethodGet,
		Path: "/api/v1/status", Summary: "Venue status"},
		func(context.Context, *struct{}) (*StatusOutput, error) { return &StatusOutput{}, nil })
	huma.Register(api, huma.Operation{OperationID: "invoke", Method: http.MethodPost,
		Path: "/api/v1/invoke", Summary: "Invoke an operation", DefaultStatus: http.StatusCreated},
		func(context.Context, *InvokeInput) (*JobOutput, error) { return &JobOutput{}, nil })
	huma.Register(api, huma.Operation{OperationID: "get-job", Method: http.MethodGet,
		Path: "/api/v1/jobs/{id}", Summary: "Get a job"},
		func(context.Context, *JobIDInput) (*JobOutput, error) { return &JobOutput{}, nil })
	sse.Register(api, huma.Operation{OperationID: "job-events", Method: http.MethodGet,
		Path: "/api/v1/jobs/{id}/sse", Summary: "Stream job status"},
		map[string]any{"status": Job{}},
		func(context.Context, *JobIDInput, sse.Sender) {})

	downgraded, err := api.OpenAPI().Downgrade()
	if err != nil {
		tb.Fatalf("Downgrade: %v", err)
	}
	fixed, err := docsui.FixOpenAPI30(downgraded)
	if err != nil {
		tb.Fatalf("FixOpenAPI30: %v", err)
	}
	return fixed
}
