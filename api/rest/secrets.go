package rest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/danielgtaylor/huma/v2"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/internal/jsonscan"
)

// ListSecretsOutput lists the caller's secret names.
type ListSecretsOutput struct {
	Body struct {
		Items []string `json:"items" doc:"Secret names, sorted; values are never returned"`
		Total int      `json:"total" doc:"How many secrets the caller has"`
	}
}

// SecretNameInput names one of the caller's secrets.
type SecretNameInput struct {
	Name string `path:"name" maxLength:"128" doc:"Secret name: letters, digits, '_', '-' or '.'" example:"OPENAI_API_KEY"`
}

// PutSecretInput carries a secret value.
type PutSecretInput struct {
	SecretNameInput
	Body json.RawMessage `doc:"The value, at least 4 characters, as a JSON string or {\"value\": string}" example:"{\"value\":\"sk-...\"}"`
}

// PutSecretOutput confirms a stored secret.
type PutSecretOutput struct {
	Body struct {
		Name   string `json:"name" doc:"The secret's name"`
		Stored bool   `json:"stored" doc:"Always true"`
	}
}

// DeleteSecretOutput confirms a deletion.
type DeleteSecretOutput struct {
	Body struct {
		Name    string `json:"name" doc:"The secret's name"`
		Deleted bool   `json:"deleted" doc:"Always true"`
	}
}

func (s *Server) registerSecrets() {
	op := s.op("list-secrets", http.MethodGet, "/api/v1/secrets", "List the caller's secret names", "Secrets")
	huma.Register(s.api, op, s.listSecrets)
	op = s.op("put-secret", http.MethodPut, "/api/v1/secrets/{name}", "Store a secret", "Secrets")
	op.Description = "Stores the value encrypted (AES-256-GCM, per user). Operations reference it as s/<name>; no endpoint returns it. " +
		"A value under 4 characters is refused (400): it could not be masked reliably in job records."
	op.MaxBodyBytes = venue.MaxSecretValueLen * 8
	badName := "The name is not 1 to 128 letters, digits, '_', '-' or '.', or the body is neither a string nor {\"value\": string}"
	huma.Register(s.api, s.documentErrors(op, map[string]string{"400": badName, "413": "The body is larger than a secret can be",
		"409": fmt.Sprintf("The caller keeps %d secrets, the most a user may, and this one is new", venue.MaxSecrets)}), s.putSecret)
	op = s.op("delete-secret", http.MethodDelete, "/api/v1/secrets/{name}", "Delete a secret", "Secrets")
	huma.Register(s.api, s.documentErrors(op, map[string]string{"400": "The name is not 1 to 128 letters, digits, '_', '-' or '.'",
		"404": "The caller has no secret of that name"}), s.deleteSecret)
}

func (s *Server) listSecrets(ctx context.Context, _ *struct{}) (*ListSecretsOutput, error) {
	names, err := s.e.SecretNames(ctx)
	if err != nil {
		return nil, toAPI(err)
	}
	out := &ListSecretsOutput{}
	out.Body.Items, out.Body.Total = names, len(names)
	if out.Body.Items == nil {
		out.Body.Items = []string{}
	}
	return out, nil
}

func (s *Server) putSecret(ctx context.Context, in *PutSecretInput) (*PutSecretOutput, error) {
	value, err := secretValue(in.Body)
	if err != nil {
		return nil, toAPI(err)
	}
	if err := s.e.PutSecret(ctx, in.Name, value); err != nil {
		return nil, toAPI(err)
	}
	out := &PutSecretOutput{}
	out.Body.Name, out.Body.Stored = in.Name, true
	return out, nil
}

var secretMembers = map[string]bool{"value": true}

// secretValue accepts both bodies the spec shows: a JSON string, or an
// object with a string "value".
func secretValue(body json.RawMessage) (string, error) {
	v, err := secretText(body)
	if err == nil && strings.ContainsRune(v, utf8.RuneError) && jsonscan.LoneSurrogate(body) {
		// Decoded, the half became U+FFFD: the secret stored would not be the one sent.
		return "", venue.Errorf(venue.EINVALID, "The secret's value escapes half of a UTF-16 surrogate pair without the other half, which would store U+FFFD instead: send both halves, or the character itself")
	}
	return v, err
}

func secretText(body json.RawMessage) (string, error) {
	var v string
	if json.Unmarshal(body, &v) == nil && string(bytes.TrimSpace(body)) != "null" {
		return v, nil
	}
	if err := strictMembers(body, secretMembers); err != nil {
		return "", err
	}
	if name := unknownMember(body, secretMembers); name != "" {
		// Another member may be the value misnamed: storing the rest would
		// keep a secret other than the one meant.
		return "", venue.Errorf(venue.EINVALID, "Invalid request: body.%s: unexpected property; send the secret as a JSON string or as {\"value\": \"...\"}", clipName(name))
	}
	var obj struct {
		Value *string `json:"value"`
	}
	if json.Unmarshal(body, &obj) == nil && obj.Value != nil {
		return *obj.Value, nil
	}
	return "", venue.Errorf(venue.EINVALID, "Request body must contain a 'value' string field, or be a JSON string")
}

func (s *Server) deleteSecret(ctx context.Context, in *SecretNameInput) (*DeleteSecretOutput, error) {
	if err := s.e.DeleteSecret(ctx, in.Name); err != nil {
		return nil, toAPI(err)
	}
	out := &DeleteSecretOutput{}
	out.Body.Name, out.Body.Deleted = in.Name, true
	return out, nil
}
