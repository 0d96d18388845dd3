package rest

import (
	"encoding/json"
	"reflect"

	"github.com/danielgtaylor/huma/v2"

	venue "github.com/gridvenue/venue"
)

// jobRecord sends a job through Huma with the record's own fast encoding,
// while the OpenAPI document describes it with JobRecord.
type jobRecord struct{ j *venue.Job }

func (r jobRecord) MarshalJSON() ([]byte, error) { return r.j.AppendJSON(nil), nil }

// Schema describes a job record in the OpenAPI document.
func (jobRecord) Schema(reg huma.Registry) *huma.Schema {
	return reg.Schema(reflect.TypeFor[JobRecord](), true, "Job")
}

// JobRecord documents the wire form of a job record (venue.Job.AppendJSON).
type JobRecord struct {
	ID        string          `json:"id" doc:"Job id: 0x and 32 hex digits" example:"0x0192f3c4a5b6c7d8e9f0011223344556"`
	Status    string          `json:"status" enum:"PENDING,STARTED,COMPLETE,FAILED,CANCELLED,REJECTED,PAUSED,INPUT_REQUIRED,AUTH_REQUIRED" doc:"Job status; COMPLETE, FAILED, CANCELLED and REJECTED are terminal"`
	Created   int64           `json:"created" doc:"Creation time, ms since the epoch"`
	Updated   int64           `json:"updated" doc:"Time of the last change, ms since the epoch"`
	Operation string          `json:"operation" doc:"The operation reference as invoked" example:"v/test/ops/echo"`
	Op        string          `json:"op" doc:"Same as operation (the reference venue's name for it)"`
	Name      string          `json:"name,omitempty" doc:"The operation's display name" example:"test:echo"`
	Caller    string          `json:"caller,omitempty" doc:"DID of the caller that owns the job"`
	Share     string          `json:"share,omitempty" doc:"Set when the job was begun with a UCAN sent as the bearer token: that token's SHA-256 (hex). Its holder reads and commands only the jobs begun with it"`
	Parent    string          `json:"parent,omitempty" doc:"Id of the job that spawned this one"`
	Input     json.RawMessage `json:"input,omitempty" doc:"The input, with secret-marked fields replaced by HIDDEN"`
	Output    json.RawMessage `json:"output" doc:"The result; null until COMPLETE"`
	Error     string          `json:"error,omitempty" doc:"Why the job failed, was cancelled or rejected"`
	Message   json.RawMessage `json:"message,omitempty" doc:"What an INPUT_REQUIRED or AUTH_REQUIRED job asks of its client"`
	Prev      *JobSnapshot    `json:"prev,omitempty" doc:"The record's previous state (status, time, output, error, message), itself with a prev"`
}

// JobSnapshot documents one earlier state of a job in a record's prev chain
// (venue.Job.appendPrev): typed, so that a generated client reads the chain
// as records rather than as an unknown value.
type JobSnapshot struct {
	Status  string          `json:"status" doc:"The job's status then, one of JobRecord's (no enum here: generators would name its constants apart from JobRecord's)"`
	Updated int64           `json:"updated" doc:"When the job entered that state, ms since the epoch"`
	Output  json.RawMessage `json:"output,omitempty" doc:"The output it had then, if any"`
	Error   string          `json:"error,omitempty" doc:"The error it had then, if any"`
	Message json.RawMessage `json:"message,omitempty" doc:"What it asked its client then, if anything"`
	Prev    *JobSnapshot    `json:"prev,omitempty" doc:"The state before that one"`
}

// rawJSON passes an already-encoded JSON value through Huma untouched.
type rawJSON json.RawMessage

func (r rawJSON) MarshalJSON() ([]byte, error) { return r, nil }

// Schema says the value may be any JSON.
func (rawJSON) Schema(huma.Registry) *huma.Schema { return &huma.Schema{} }

// assetMetadata is asset metadata as stored, passed through untouched: a
// JSON object (registering anything else is refused), which the document
// says, so that a generated client reads a map rather than an unknown value.
type assetMetadata json.RawMessage

func (m assetMetadata) MarshalJSON() ([]byte, error) { return m, nil }

// Schema says the metadata is a JSON object of any members.
func (assetMetadata) Schema(huma.Registry) *huma.Schema {
	return &huma.Schema{Type: huma.TypeObject, AdditionalProperties: true,
		Description: "The asset's metadata as registered: name, description, content {sha256, contentType, fileName}, operation, and any other members"}
}
