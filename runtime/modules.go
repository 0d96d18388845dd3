package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"slices"
	"strings"

	venue "github.com/gridvenue/venue"
)

// ModuleChecker vets the code of an uploaded operation before the venue
// keeps it: the wasm host compiles the module and checks its ABI. The
// engine calls it for content uploaded to an asset whose metadata makes it
// an operation run by a checked adapter.
type ModuleChecker interface {
	CheckModule(ctx context.Context, module []byte) error
}

// DefaultMaxModuleSize bounds an uploaded operation's module.
const DefaultMaxModuleSize = 64 << 20

// checkedAdapter returns the checker for the adapter of an operation asset
// (nil when meta is no such operation).
func (e *Engine) checkedAdapter(meta []byte) ModuleChecker {
	var m struct {
		Operation *struct {
			Adapter string `json:"adapter"`
		} `json:"operation"`
	}
	if json.Unmarshal(meta, &m) != nil || m.Operation == nil {
		return nil
	}
	family, _, _ := strings.Cut(m.Operation.Adapter, ":") // "wasm:upper" runs as "wasm" does
	return e.checkers[family]
}

// checkOperationMeta refuses operation metadata the venue could never run:
// no adapter, or an input schema that does not compile. Metadata without an
// operation object is a plain asset and passes.
func (e *Engine) checkOperationMeta(id venue.AssetID, meta []byte) error {
	var probe struct {
		Operation json.RawMessage `json:"operation"`
	}
	if json.Unmarshal(meta, &probe) != nil || probe.Operation == nil {
		return nil
	}
	op, err := venue.ParseOperation("a/"+id.Hex(), meta)
	if err != nil {
		return err
	}
	if err := e.checkAdapterRuns(op, meta); err != nil {
		return err
	}
	if err := e.checkModuleFields(op, probe.Operation); err != nil {
		return err
	}
	if _, err := CompileSchema(op.Path, op.Input); err != nil {
		return venue.Errorf(venue.EINVALID, "Operation input schema does not compile: %s", venue.ErrorMessage(err))
	}
	if _, err := CompileSchema(op.Path, op.Output); err != nil {
		return venue.Errorf(venue.EINVALID, "Operation output schema does not compile: %s", venue.ErrorMessage(err))
	}
	return checkModuleType(op, meta, id)
}

// checkAdapterRuns refuses an uploaded module's operation whose adapter
// this venue does not run: one whose content is typed application/wasm,
// or whose adapter is a checked adapter's name in other case ("WASM").
// Such an adapter is a misspelt "wasm": registered, the operation would
// fail every call ("needs adapter ..., which this venue does not run")
// and its module's upload would go unchecked. Other metadata may describe
// another venue's operation and passes, as before.
func (e *Engine) checkAdapterRuns(op *venue.Operation, meta []byte) error {
	if e.execs[op.Adapter] != nil || len(e.checkers) == 0 {
		return nil
	}
	ct, _ := contentTypeOf(meta)
	mt, _, _ := mime.ParseMediaType(ct)
	refuse := mt == "application/wasm"
	families := make([]string, 0, len(e.checkers))
	for family := range e.checkers {
		families = append(families, family)
		refuse = refuse || strings.EqualFold(op.Adapter, family)
	}
	if !refuse {
		return nil
	}
	slices.Sort(families)
	return venue.Errorf(venue.EINVALID, "Operation adapter %q is not one this venue runs: an uploaded WebAssembly module's adapter is %q (or \"%s:<name>\")", clipRef(op.Name), families[0], families[0])
}

// moduleOpFields are the members of an uploaded module's operation object
// the venue reads; referenceOpFields those the reference venue defines,
// which metadata copied from it may carry and which are taken unread.
var (
	moduleOpFields    = []string{"adapter", "input", "output", "secretFields", "toolName"}
	referenceOpFields = []string{"secretKey", "info", "peer", "readOnly", "internal", "remoteToolName", "server"}
)

// checkModuleFields refuses a member of an uploaded module's operation
// object that the venue does not read ("inputs", "Output"): misspelt, it
// would be ignored without a word, and the schema it holds never checked.
func (e *Engine) checkModuleFields(op *venue.Operation, obj json.RawMessage) error {
	if e.checkers[op.Adapter] == nil {
		return nil
	}
	var fields map[string]json.RawMessage
	if json.Unmarshal(obj, &fields) != nil {
		return nil
	}
	names := make([]string, 0, len(fields))
	for name := range fields {
		if !slices.Contains(moduleOpFields, name) && !slices.Contains(referenceOpFields, name) {
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		return nil
	}
	slices.Sort(names)
	return venue.Errorf(venue.EINVALID, "operation.%s is not a member the venue reads (an uploaded module's operation has %s): a misspelt one would be ignored", clipRef(names[0]), strings.Join(moduleOpFields, ", "))
}

// checkModuleType refuses an uploaded operation whose content says it is
// something else than a WebAssembly module (text/plain, say): its content
// is served with that type, and a client reading the metadata would take
// it for what it says. No content type at all is taken as the module's.
// One that names no module at all could never run, and is refused too.
func checkModuleType(op *venue.Operation, meta []byte, id venue.AssetID) error {
	ct, ok := contentTypeOf(meta)
	if family, _, _ := strings.Cut(op.Adapter, ":"); family != "wasm" || !ok {
		return nil
	}
	if _, err := contentOf(meta, id); errors.Is(err, errNoContent) {
		return venue.Errorf(venue.EINVALID, "Operation of adapter %s runs a WebAssembly module: its metadata needs content, with content.sha256 of the module, as {\"contentType\": \"application/wasm\", \"sha256\": \"<64 hex digits>\"}", op.Adapter)
	} else if err != nil {
		return err
	}
	if ct == "" {
		return nil
	}
	if mt, _, err := mime.ParseMediaType(ct); err != nil || mt != "application/wasm" {
		return venue.Errorf(venue.EINVALID, "Operation of adapter %s runs a WebAssembly module: its content.contentType must be application/wasm, not %q", op.Adapter, ct)
	}
	return nil
}

// contentTypeOf reads content.contentType of asset metadata ("" for none);
// false if the metadata does not decode so.
func contentTypeOf(meta []byte) (string, bool) {
	var m struct {
		Content struct {
			ContentType string `json:"contentType"`
		} `json:"content"`
	}
	err := json.Unmarshal(meta, &m)
	return m.Content.ContentType, err == nil
}

// checkStoredModule vets the module of an operation registered over
// content that is stored already (uploaded for another asset naming the
// same sha256), as PutContent vets content uploaded to it: otherwise such
// an operation would skip the check and fail every call instead.
func (e *Engine) checkStoredModule(ctx context.Context, meta []byte, id venue.AssetID) error {
	checker := e.checkedAdapter(meta)
	if checker == nil {
		return nil
	}
	ci, err := contentOf(meta, id)
	if err != nil {
		return nil // no content named: it is checked when uploaded
	}
	module, size, err := e.storedModule(ctx, ci.sha)
	switch {
	case venue.ErrorCode(err) == venue.ENOTFOUND:
		return nil
	case err != nil:
		return err
	case module == nil:
		return venue.Errorf(venue.ETOOLARGE, "The content this operation names (stored already, %d bytes) is over the module limit of %d bytes", size, DefaultMaxModuleSize)
	}
	if err := checker.CheckModule(ctx, module); err != nil {
		return venue.Errorf(venue.ErrorCode(err), "The content this operation names is stored already and is no module the venue can run: %s", venue.ErrorMessage(err))
	}
	return nil
}

// moduleTee buffers a checked operation's content as it streams, up to the
// module size limit, so the checker can see it before it is committed.
type moduleTee struct {
	buf   bytes.Buffer
	limit int
}

func (t *moduleTee) Write(p []byte) (int, error) {
	if t.buf.Len()+len(p) > t.limit {
		return 0, venue.Errorf(venue.ETOOLARGE, "Cannot PUT asset content: an operation module may be at most %d bytes", t.limit)
	}
	return t.buf.Write(p)
}

// OperationModule reads the code of the operation being run: the content
// its metadata names by content.sha256.
// Returns ENOTFOUND if the content was never uploaded.
func (env *Env) OperationModule(ctx context.Context) ([]byte, error) {
	op := env.j.op
	ci, err := contentOf(op.Meta, op.Asset)
	if err != nil {
		return nil, venue.Errorf(venue.EINVALID, "Operation %s names no content: its metadata needs content.sha256 of the module", op.Path)
	}
	module, size, err := env.e.storedModule(ctx, ci.sha)
	switch {
	case venue.ErrorCode(err) == venue.ENOTFOUND:
		return nil, venue.Errorf(venue.ENOTFOUND, "Operation %s has no module: upload its content first (PUT /api/v1/assets/{id}/content)", op.Path)
	case err != nil:
		return nil, err
	case module == nil:
		return nil, venue.Errorf(venue.ETOOLARGE, "Module of operation %s is %d bytes; the limit is %d", op.Path, size, DefaultMaxModuleSize)
	}
	return module, nil
}

// storedModule reads the content stored as sha, with its size; no bytes if
// it is over DefaultMaxModuleSize. Returns the store's ENOTFOUND if there
// is none.
func (e *Engine) storedModule(ctx context.Context, sha [32]byte) ([]byte, int64, error) {
	body, size, err := e.store.Content(ctx, sha)
	if err != nil {
		return nil, 0, err
	}
	defer body.Close()
	if size > DefaultMaxModuleSize {
		return nil, size, nil
	}
	buf := bytes.NewBuffer(make([]byte, 0, size))
	_, err = io.Copy(buf, body)
	return buf.Bytes(), size, err
}
