package rest

import (
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/danielgtaylor/huma/v2"
	"github.com/danielgtaylor/huma/v2/adapters/humago"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/runtime"
)

// Huma documents a Go slice as a nullable array, but the venue never sends
// null for one (an empty list is []), and a nullable array costs every
// generated client a pointer or a null check: arrays are documented as
// arrays. Set before any schema is built; package rest is the only user of
// Huma.
func init() { huma.DefaultArrayNullable = false }

// Authenticator decides who makes a request. Issue-level auth (tokens,
// UCANs) plugs in here; an error is answered with its code's status.
type Authenticator interface {
	Authenticate(r *http.Request) (venue.Caller, error)
}

// Options configure the REST door. Zero values mean the documented default.
type Options struct {
	Logger       *slog.Logger  // nil discards
	Auth         Authenticator // nil: every caller is the engine's public caller
	MaxBodyBytes int64         // largest JSON request body; default 16 MiB
	// MaxBodiesBytes bounds the bytes of request bodies (asset content
	// aside) held at once; default 256 MiB, and never below MaxBodyBytes.
	MaxBodiesBytes int64
	BodyTimeout    time.Duration // longest wait for more of a request body; default 30 s
	// Hosts, when not empty, are the only host names (besides loopback
	// addresses) the venue answers to, as a venue listening on loopback
	// must: see Guard.
	Hosts []string
}

// Server is the venue's HTTP handler: REST, docs and discovery.
type Server struct {
	e           *runtime.Engine
	log         *slog.Logger
	auth        Authenticator
	maxBody     int64
	bodies      *bodyBudget
	bodyTimeout time.Duration
	hosts       []string // see Options.Hosts
	mux         *http.ServeMux
	api         huma.API
	handler     http.Handler
	openapi     []byte        // the OpenAPI 3.0 document, built once
	bridged     Bridged       // nil: the catalog only (operations.go)
	closing     chan struct{} // closed by EndStreams
	endOnce     sync.Once
	streaming   atomic.Int64 // job event streams open
}

// New builds the handler for engine e.
func New(e *runtime.Engine, opts Options) (*Server, error) {
	installErrors()
	s := &Server{e: e, log: opts.Logger, auth: opts.Auth, maxBody: opts.MaxBodyBytes, bodyTimeout: opts.BodyTimeout, hosts: opts.Hosts, mux: http.NewServeMux(),
		closing: make(chan struct{})}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	if s.maxBody <= 0 {
		s.maxBody = 16 << 20
	}
	bodies := opts.MaxBodiesBytes
	if bodies <= 0 {
		bodies = 256 << 20
	}
	s.bodies = newBodyBudget(max(bodies, s.maxBody))
	if s.bodyTimeout <= 0 {
		s.bodyTimeout = 30 * time.Second
	}
	if s.auth == nil {
		s.auth = publicAuth{e}
	}
	s.api = humago.New(s.mux, s.humaConfig())
	s.register()
	doc, err := s.buildOpenAPI()
	if err != nil {
		return nil, err
	}
	s.openapi = doc
	s.handler = s.recoverPanics(s.logRequests(jsonByDefault(s.identify(s.chargeRecords(s.mux)))))
	return s, nil
}

// ServeHTTP serves a request of the REST door. The venue's HTTP server
// serves it behind Guard, which references with slashes need.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.handler.ServeHTTP(w, r) }

// EndStreams ends every job event stream, now and from now on, and waits
// up to grace for the open ones to send their last events: the venue calls
// it as it shuts down, after its engine has recorded how the jobs ended and
// before it cancels the requests, since a stream would otherwise hold its
// connection open until the job ends, or be cut before its job's end.
func (s *Server) EndStreams(grace time.Duration) {
	s.endOnce.Do(func() { close(s.closing) })
	for deadline := time.Now().Add(grace); s.streaming.Load() > 0 && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
}

// API returns the Huma API, for tests and the spec command.
func (s *Server) API() huma.API { return s.api }

func (s *Server) humaConfig() huma.Config {
	cfg := huma.DefaultConfig("Venue API", s.e.Identity().DID)
	cfg.Info.Version = "1"
	cfg.Info.Description = "A grid venue: self-describing operations run sandboxed, with a job record for every invocation, " +
		"assets, per-user encrypted secrets and lattice reads. Errors are {\"error\": \"...\"}."
	cfg.Servers = []*huma.Server{{URL: s.e.Identity().BaseURL}}
	// A bearer token is optional: without one the caller is the venue's
	// anonymous identity, whose rights the venue's configuration sets.
	cfg.Components.SecuritySchemes = map[string]*huma.SecurityScheme{"bearer": {Type: "http", Scheme: "bearer", BearerFormat: "JWT",
		Description: "A did:key self-issued EdDSA token (venued token mints one), a token from /login, an OAuth provider's RS256 token, or a UCAN addressed to the venue"}}
	cfg.Security = []map[string][]string{{"bearer": {}}, {}}
	cfg.OpenAPIPath, cfg.DocsPath, cfg.SchemasPath = "", "", ""
	cfg.CreateHooks = nil
	cfg.Transformers = []huma.Transformer{noteErrorBody}
	cfg.Formats = map[string]huma.Format{"application/json": jsonFormat, "json": jsonFormat}
	return cfg
}

// register mounts every endpoint. Each resource file registers its own.
func (s *Server) register() {
	s.registerStatus()
	s.registerAssets()
	s.registerInvoke()
	s.registerJobs()
	s.registerOperations()
	s.registerValues()
	s.registerSecrets()
	s.registerDocs()
	s.registerDIDs()
	s.mux.HandleFunc("/", s.notFound)
}

// op fills the parts of a Huma operation every endpoint shares.
func (s *Server) op(id, method, path, summary string, tags ...string) huma.Operation {
	return huma.Operation{OperationID: id, Method: method, Path: path, Summary: summary,
		Tags: tags, MaxBodyBytes: s.maxBody, BodyReadTimeout: -1} // Guard bounds body reads
}

// documentErrors lists the error statuses an operation answers with, each
// described, beside a default for any other error; every one has the
// {"error": "..."} body.
func (s *Server) documentErrors(op huma.Operation, statuses map[string]string) huma.Operation {
	op.Responses = map[string]*huma.Response{"default": errorResponse(s.api, "Any other error")}
	for status, desc := range statuses {
		op.Responses[status] = errorResponse(s.api, desc)
	}
	return op
}

type publicAuth struct{ e *runtime.Engine }

func (p publicAuth) Authenticate(*http.Request) (venue.Caller, error) { return p.e.PublicCaller(), nil }
