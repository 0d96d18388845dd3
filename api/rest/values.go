package rest

import (
	"context"
	"net/http"
	"strings"

	"github.com/danielgtaylor/huma/v2"

	"github.com/gridvenue/venue/runtime"
)

// noStore is the Cache-Control of every lattice read: the answer is the
// caller's own view, which a shared cache must not keep.
const noStore = "private, no-store"

// foreignRead documents the 403 of a lattice read of another owner's path.
const foreignRead = "A path of another owner (a DID-qualified path) without a UCAN granting crud/read on it"

// ReadValueInput names a lattice path.
type ReadValueInput struct {
	Path    string `query:"path" required:"true" minLength:"1" doc:"Lattice path, e.g. v/ops, j, w/notes, a/<hash>" example:"v/info"`
	MaxSize int    `query:"maxSize" minimum:"0" doc:"Largest value to return, in bytes (default 1000000; 0 gives the default); larger values come back truncated"`
	Conditional
}

// ReadValueOutput is the value at the path.
type ReadValueOutput struct {
	Status       int
	CacheControl string `header:"Cache-Control"`
	ETag         string `header:"ETag" doc:"For a present value read whole: 0x and the SHA-256 of its JSON, quoted"`
	Body         *runtime.ReadResult
}

// SliceValuesInput names a lattice path and a page.
type SliceValuesInput struct {
	Path    string `query:"path" required:"true" minLength:"1" doc:"Lattice path of a map or vector, e.g. j or v/ops" example:"j"`
	Offset  int    `query:"offset" minimum:"0" default:"0" doc:"Entries to skip"`
	Limit   int    `query:"limit" minimum:"0" maximum:"1000" default:"100" doc:"Most entries to return; 0 gives the default, 100"`
	MaxSize int    `query:"maxSize" minimum:"0" doc:"Largest page, in bytes (default 1000000, at most 16777216): a larger page is refused, unless it is one entry"`
}

// SliceValuesOutput is a page of entries.
type SliceValuesOutput struct {
	CacheControl string `header:"Cache-Control"`
	Body         *runtime.SliceResult
}

// ListValuesInput names a lattice path and a page of keys.
type ListValuesInput struct {
	Path   string `query:"path" required:"true" minLength:"1" doc:"Lattice path of a map, e.g. w or v/ops" example:"v/ops"`
	Offset int    `query:"offset" minimum:"0" default:"0" doc:"Keys to skip"`
	Limit  int    `query:"limit" minimum:"0" maximum:"1000" default:"1000" doc:"Most keys to return; 0 gives the default, 1000"`
	Fields string `query:"fields" doc:"Comma-separated paths below each key (at most 16, e.g. status,meta/name): adds values, each key's fields as {exists, value, truncated}"`
}

// ListValuesOutput is a page of keys.
type ListValuesOutput struct {
	CacheControl string `header:"Cache-Control"`
	Body         *runtime.ListResult
}

func (s *Server) registerValues() {
	op := s.op("read-value", http.MethodGet, "/api/v1/values/read", "Read a lattice value", "Lattice")
	op.Description = "A job-free read of the value at a path, as the caller sees the lattice. An absent path is {\"exists\": false}, not 404. " +
		"A present value read whole has an ETag; sent back in If-None-Match, it makes the answer 304 while the value is unchanged."
	op = s.documentErrors(op, map[string]string{"400": "A malformed path", "403": foreignRead})
	op.Responses["304"] = notModified("Cache-Control")
	huma.Register(s.api, op, s.readValue)
	op = s.op("slice-values", http.MethodGet, "/api/v1/values/slice", "Page through a map or vector", "Lattice")
	op.Description = "A page of the entries of a map ({key, value} objects in key order; j pages the caller's jobs) or the elements of a vector. " +
		"A map stored as separate values under its path (written key by key) comes in path order: a key with values below it sorts as the key and '/'. " +
		"A page over maxSize bytes (default 1,000,000) is refused (400: ask for fewer), unless it is a single entry."
	op = s.documentErrors(op, map[string]string{"400": "A malformed path or paging value, or a page over maxSize bytes", "403": foreignRead})
	huma.Register(s.api, op, s.sliceValues)
	op = s.op("list-values", http.MethodGet, "/api/v1/values/list", "List the keys of a map", "Lattice")
	op.Description = "A page of the keys of a map in key order (j lists the caller's job ids), or the count of a vector. " +
		"A map stored as separate values under its path comes in path order, as slice gives it. " +
		"With fields, each key's values at those paths below it come too, as values: {key: {field: {exists, value, truncated}}}."
	op = s.documentErrors(op, map[string]string{"400": "A malformed path, paging value or fields list, or fields on a value that is not a map", "403": foreignRead})
	huma.Register(s.api, op, s.listValues)
	s.registerCount()
	s.registerInspect()
}

func (s *Server) listValues(ctx context.Context, in *ListValuesInput) (*ListValuesOutput, error) {
	var fields []string
	if in.Fields != "" {
		fields = strings.Split(in.Fields, ",")
	}
	res, err := s.e.ListFields(ctx, in.Path, in.Offset, in.Limit, fields)
	if err != nil {
		return nil, toAPI(err)
	}
	return &ListValuesOutput{CacheControl: noStore, Body: res}, nil
}

func (s *Server) readValue(ctx context.Context, in *ReadValueInput) (*ReadValueOutput, error) {
	res, err := s.e.Read(ctx, in.Path, in.MaxSize)
	if err != nil {
		return nil, toAPI(err)
	}
	out := &ReadValueOutput{Status: http.StatusOK, CacheControl: noStore, Body: res}
	if res.Exists && !res.Truncated {
		out.ETag = etagOf(res.Value)
	}
	if out.ETag != "" && in.matches(out.ETag) {
		out.Status, out.Body = http.StatusNotModified, nil
	}
	return out, nil
}

func (s *Server) sliceValues(ctx context.Context, in *SliceValuesInput) (*SliceValuesOutput, error) {
	res, err := s.e.SliceUpTo(ctx, in.Path, in.Offset, in.Limit, in.MaxSize)
	if err != nil {
		return nil, toAPI(err)
	}
	return &SliceValuesOutput{CacheControl: noStore, Body: res}, nil
}
