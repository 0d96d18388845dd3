package rest

import (
	"crypto/ed25519"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"

	venue "github.com/gridvenue/venue"
)

// didDocument is a DID document as served for did:web resolution.
type didDocument struct {
	Context              []string       `json:"@context"`
	ID                   string         `json:"id"`
	Controller           string         `json:"controller,omitempty"`
	AlsoKnownAs          []string       `json:"alsoKnownAs,omitempty"`
	VerificationMethod   []verifyMethod `json:"verificationMethod,omitempty"`
	Authentication       []string       `json:"authentication,omitempty"`
	AssertionMethod      []string       `json:"assertionMethod,omitempty"`
	CapabilityDelegation []string       `json:"capabilityDelegation,omitempty"`
	CapabilityInvocation []string       `json:"capabilityInvocation,omitempty"`
	Service              []didService   `json:"service,omitempty"`
}

type verifyMethod struct {
	ID                 string `json:"id"`
	Type               string `json:"type"`
	Controller         string `json:"controller"`
	PublicKeyMultibase string `json:"publicKeyMultibase"`
}

type didService struct {
	ID              string `json:"id"`
	Type            string `json:"type"`
	ServiceEndpoint string `json:"serviceEndpoint"`
}

var didContext = []string{"https://www.w3.org/ns/did/v1", "https://w3id.org/security/multikey/v1"}

// apiServiceType is the DID service type of the venue API, version 1. The
// TypeScript SDK finds the API by this exact string when it connects through
// did:web, so it keeps the reference venue's spelling.
const apiServiceType = "Covia.API.v1"

func (s *Server) registerDIDs() {
	s.mux.HandleFunc("GET /.well-known/did.json", s.venueDID)
	if prefix := s.urlPath(); prefix != "" {
		// did:web resolves a DID with a path (did:web:host:venue) at
		// <url>/did.json: a proxy serving the venue under that path passes
		// it on as /did.json, or unchanged.
		s.mux.HandleFunc("GET /did.json", s.venueDID)
		if safePattern.MatchString(prefix) {
			s.mux.HandleFunc("GET "+prefix+"/did.json", s.venueDID)
		}
	}
	s.mux.HandleFunc("GET /a/{id}/did.json", s.assetDID)
	s.mux.HandleFunc("GET /u/{id}/did.json", s.userDID)
}

// safePattern matches paths that can stand in a ServeMux pattern as they are.
var safePattern = regexp.MustCompile(`^(/[A-Za-z0-9_~-][A-Za-z0-9._~-]*)+$`)

// urlPath is the path of the venue's public URL ("/venue" for
// http://example.com/venue), "" when it has none.
func (s *Server) urlPath() string {
	u, err := url.Parse(s.e.Identity().BaseURL)
	if err != nil {
		return ""
	}
	return strings.TrimRight(u.EscapedPath(), "/")
}

func (s *Server) venueDID(w http.ResponseWriter, r *http.Request) {
	id := s.e.Identity()
	key := id.DID + "#key-1"
	doc := didDocument{
		Context: didContext, ID: id.DID,
		VerificationMethod: []verifyMethod{{ID: key, Type: "Multikey", Controller: id.DID,
			PublicKeyMultibase: venue.Multikey(id.Key.Public().(ed25519.PublicKey))}},
		Authentication: []string{key}, AssertionMethod: []string{key},
		CapabilityDelegation: []string{key}, CapabilityInvocation: []string{key},
		Service: []didService{{ID: id.DID + "#api", Type: apiServiceType, ServiceEndpoint: id.BaseURL + "/api/v1"}},
	}
	writeDID(w, doc)
}

// assetDID serves the DID document of an asset, controlled by the venue.
func (s *Server) assetDID(w http.ResponseWriter, r *http.Request) {
	aid, err := venue.ParseAssetID(r.PathValue("id"))
	if err != nil {
		writeError(w, err)
		return
	}
	if _, err := s.e.Asset(r.Context(), aid); err != nil {
		writeError(w, err)
		return
	}
	id := s.e.Identity()
	writeDID(w, didDocument{Context: didContext[:1], ID: id.DID + ":a:" + aid.Hex(), Controller: id.DID,
		AlsoKnownAs: []string{id.DID + "/a/" + aid.String()},
		Service: []didService{{ID: "#content", Type: "AssetContent",
			ServiceEndpoint: id.BaseURL + "/api/v1/assets/" + aid.String() + "/content"}}})
}

// userDID serves the DID document of a user the venue knows.
func (s *Server) userDID(w http.ResponseWriter, r *http.Request) {
	user := r.PathValue("id")
	did := s.e.Identity().UserDID(user)
	if !venue.ValidSecretName(user) {
		writeJSONError(w, http.StatusBadRequest, fmt.Sprintf("Invalid user id: use 1 to %d letters, digits, '_', '-' or '.', starting with a letter or digit", venue.MaxSecretNameLen))
		return
	}
	known, err := s.e.KnownUser(r.Context(), did)
	if err != nil {
		writeError(w, err)
		return
	}
	if !known {
		writeJSONError(w, http.StatusNotFound, "User not found: "+user)
		return
	}
	writeDID(w, didDocument{Context: didContext[:1], ID: did, Controller: s.e.Identity().DID})
}

func writeDID(w http.ResponseWriter, doc didDocument) {
	w.Header().Set("Content-Type", "application/did+json")
	w.Header().Set("Access-Control-Allow-Origin", "*")
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.Encode(doc)
}
