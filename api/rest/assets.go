package rest

import (
	"context"
	"encoding/json"
	"net/http"
	"reflect"

	"github.com/danielgtaylor/huma/v2"

	venue "github.com/gridvenue/venue"
)

// ListAssetsInput pages the assets.
type ListAssetsInput struct {
	Offset int `query:"offset" minimum:"0" default:"0" doc:"Assets to skip"`
	Limit  int `query:"limit" minimum:"0" maximum:"1000" default:"1000" doc:"Most assets to return (at most 1000; default: all, up to 1000)"`
}

// ListAssetsOutput is a page of asset ids.
type ListAssetsOutput struct {
	Body struct {
		Total  int      `json:"total" doc:"How many assets there are"`
		Offset int      `json:"offset" doc:"Assets skipped"`
		Limit  int      `json:"limit" doc:"Page size asked for"`
		Items  []string `json:"items" doc:"Asset ids (0x and 64 hex digits), in id order"`
	}
}

// RegisterAssetInput is asset metadata, kept byte for byte. The engine
// checks it (one place for the rules); AssetMetadata documents it.
type RegisterAssetInput struct {
	RawBody []byte
}

// AssetMetadata documents the metadata fields the venue reads.
type AssetMetadata struct {
	Name        string `json:"name,omitempty" doc:"A name for people"`
	Description string `json:"description,omitempty" doc:"What the asset is"`
	Content     *struct {
		ContentType string   `json:"contentType,omitempty" doc:"Media type of the content" example:"text/plain"`
		SHA256      string   `json:"sha256" pattern:"^(0x)?[0-9a-fA-F]{64}$" doc:"SHA-256 of the content, 64 hex digits"`
		FileName    string   `json:"fileName,omitempty" doc:"File name offered on download"`
		_           struct{} `additionalProperties:"true"`
	} `json:"content,omitempty" doc:"For an artifact: what its binary content must hash to"`
	Operation map[string]any `json:"operation,omitempty" doc:"For an operation: adapter, input and output JSON Schemas"`
	_         struct{}       `additionalProperties:"true"`
}

// RegisterAssetOutput is the new asset's id.
type RegisterAssetOutput struct {
	Status   int
	Location string `header:"Location" doc:"Where the asset can be read"`
	Body     string `doc:"The asset id: 0x and the 64 hex digits of the SHA-256 of the metadata's canonical JSON (RFC 8785)"`
}

// AssetIDInput names an asset in the path.
type AssetIDInput struct {
	ID string `path:"id" doc:"Asset reference: 0x and 64 hex digits, bare hex, a/<hex>, this venue's DID URL <did>/a/<hex>, the asset's own DID <did>:a:<hex>, or a path in w/, o/ or v/ holding an asset id or asset metadata; slashes may stay unencoded"`
	Conditional
}

// assetRefDoc describes the asset references the asset routes accept (as
// AssetIDInput's doc tag does).
const assetRefDoc = "Asset reference: 0x and 64 hex digits, bare hex, a/<hex>, this venue's DID URL <did>/a/<hex>, the asset's own DID <did>:a:<hex>, " +
	"or a path in w/, o/ or v/ holding an asset id or asset metadata; slashes may stay unencoded"

// AssetOutput is the metadata exactly as registered.
type AssetOutput struct {
	Status      int
	ContentType string `header:"Content-Type"`
	ETag        string `header:"ETag" doc:"0x and the SHA-256 of the metadata as served, quoted: the asset id itself when it was registered in canonical form"`
	Body        assetMetadata
}

func (s *Server) registerAssets() {
	huma.Register(s.api, s.documentErrors(s.op("list-assets", http.MethodGet, "/api/v1/assets", "List assets", "Assets"), map[string]string{"400": badPage}), s.listAssets)
	op := s.op("register-asset", http.MethodPost, "/api/v1/assets", "Register asset metadata", "Assets")
	op.Description = "Stores the metadata (a JSON object) and returns its id. Metadata with content.sha256 describes an artifact whose bytes are then uploaded with PUT /api/v1/assets/{id}/content."
	op.DefaultStatus = http.StatusCreated
	op.RequestBody = &huma.RequestBody{Required: true, Content: map[string]*huma.MediaType{"application/json": {
		Schema: s.api.OpenAPI().Components.Schemas.Schema(reflect.TypeFor[AssetMetadata](), true, "AssetMetadata")}}}
	op = s.documentErrors(op, map[string]string{"400": "Not a JSON object, or a malformed content or operation object",
		"413": "Metadata larger than the venue allows, or more than the caller may store as assets (maxUserAssetsBytes)"})
	huma.Register(s.api, op, s.registerAsset)
	delete(op.RequestBody.Content, "application/octet-stream") // Huma's for a RawBody; the body is JSON
	op = s.op("get-asset", http.MethodGet, "/api/v1/assets/{id}", "Read asset metadata", "Assets")
	op = s.documentErrors(op, map[string]string{"400": "Not an asset reference",
		"404": "No such asset, or nothing at the path named"})
	op.Responses["304"] = notModified()
	huma.Register(s.api, op, s.getAsset)
	s.registerContent()
}

func (s *Server) listAssets(ctx context.Context, in *ListAssetsInput) (*ListAssetsOutput, error) {
	ids, total, err := s.e.Assets(ctx, in.Offset, in.Limit)
	if err != nil {
		return nil, toAPI(err)
	}
	out := &ListAssetsOutput{}
	out.Body.Total, out.Body.Offset, out.Body.Limit = total, in.Offset, in.Limit
	out.Body.Items = make([]string, len(ids))
	for i, id := range ids {
		out.Body.Items[i] = id.String()
	}
	return out, nil
}

func (s *Server) registerAsset(ctx context.Context, in *RegisterAssetInput) (*RegisterAssetOutput, error) {
	id, err := s.e.RegisterAsset(ctx, in.RawBody)
	if err != nil {
		return nil, toAPI(err)
	}
	return &RegisterAssetOutput{Status: http.StatusCreated, Location: "/api/v1/assets/" + id.String(), Body: id.String()}, nil
}

func (s *Server) getAsset(ctx context.Context, in *AssetIDInput) (*AssetOutput, error) {
	id, meta, err := s.e.ResolveAsset(ctx, in.ID)
	if err != nil {
		return nil, toAPI(err)
	}
	if !json.Valid(meta) {
		return nil, toAPI(venue.Errorf(venue.EINTERNAL, "Stored metadata of %s is not JSON", id))
	}
	out := &AssetOutput{Status: http.StatusOK, ContentType: "application/json", ETag: etagOf(meta), Body: assetMetadata(meta)}
	if in.matches(out.ETag) {
		out.Status, out.Body = http.StatusNotModified, nil
	}
	return out, nil
}

// assetID reads the asset a content route names: an id directly, any other
// reference through the engine's resolver.
func (s *Server) assetID(r *http.Request) (venue.AssetID, error) {
	ref := r.PathValue("id")
	if id, err := venue.ParseAssetID(ref); err == nil {
		return id, nil
	}
	id, _, err := s.e.ResolveAsset(r.Context(), ref)
	return id, err
}
