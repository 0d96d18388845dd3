package runtime

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"strings"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/internal/jsonscan"
)

// RegisterAsset stores asset metadata for the caller and returns its id, the
// hash of its canonical form. Registering the same metadata again (in any
// formatting) returns the same id and keeps the first text.
// Returns EINVALID if meta is not a JSON object or its content object is
// malformed, ETOOLARGE if it exceeds MaxMetaSize.
func (e *Engine) RegisterAsset(ctx context.Context, meta []byte) (venue.AssetID, error) {
	c, err := e.caller(ctx)
	if err != nil {
		return venue.AssetID{}, err
	}
	if err := e.authorizeOwn(ctx, c, venue.AbilityAssetStore, venue.NSAssets); err != nil {
		return venue.AssetID{}, err
	}
	if len(meta) > e.cfg.MaxMetaSize {
		return venue.AssetID{}, venue.Errorf(venue.ETOOLARGE, "Asset metadata is %d bytes; the limit is %d", len(meta), e.cfg.MaxMetaSize)
	}
	id, err := venue.AssetIDOf(meta)
	if err != nil {
		return id, venue.Errorf(venue.EINVALID, "Unable to parse asset metadata: %s", venue.ErrorMessage(err))
	}
	if err := refuseDeep("Asset metadata", meta); err != nil {
		return id, err
	}
	if err := refuseMisread("Asset metadata", meta); err != nil {
		return id, err
	}
	if err := refuseMetaVariants(meta); err != nil {
		return id, err
	}
	if ci, err := contentOf(meta, id); err != nil && !errors.Is(err, errNoContent) {
		return id, err
	} else if err == nil && !fullMediaType(ci.contentType) {
		// Served as its Content-Type, a bare token ("nonsense") is what no
		// client can act on. Checked here only: assets registered before
		// stay readable.
		return id, venue.Errorf(venue.EINVALID, "content.contentType %q names no type and subtype: give a media type such as \"text/plain\" (asset %s)", clipRef(ci.contentType), id)
	}
	if err := e.checkOperationMeta(id, meta); err != nil {
		return id, err
	}
	if err := e.checkStoredModule(ctx, meta, id); err != nil {
		return id, err
	}
	if _, err := e.store.PutAsset(ctx, id, c.DID, bytes.TrimSpace(meta), e.ms()); err != nil {
		return id, refusedAs("Cannot register asset", err)
	}
	e.touchUser(ctx, c.DID)
	return id, nil
}

// Asset returns the metadata as registered. Returns ENOTFOUND if unknown.
func (e *Engine) Asset(ctx context.Context, id venue.AssetID) ([]byte, error) {
	meta, err := e.assetMeta(ctx, id)
	if venue.ErrorCode(err) == venue.ENOTFOUND {
		return nil, venue.Errorf(venue.ENOTFOUND, "Asset not found: %s", id)
	}
	return meta, err
}

// assetMeta returns an asset's metadata: a catalog entry's, whose id the
// catalog lists as the operation's asset, or a registered asset's from the
// store. Returns the store's ENOTFOUND if neither has it.
func (e *Engine) assetMeta(ctx context.Context, id venue.AssetID) ([]byte, error) {
	if op := e.cat.byAsset[id]; op != nil {
		return op.Meta, nil
	}
	return e.store.Asset(ctx, id)
}

// Assets lists asset ids in id order with the total. limit < 0 means all.
func (e *Engine) Assets(ctx context.Context, offset, limit int) ([]venue.AssetID, int, error) {
	return e.store.ListAssets(ctx, offset, limit)
}

// AssetContent describes the content of an asset, ready to stream.
type AssetContent struct {
	Body        io.ReadSeekCloser
	Size        int64
	SHA256      [32]byte // what the bytes hash to: the content's identity
	ContentType string
	FileName    string
}

// Content opens an asset's content. The caller closes Body.
// Returns ENOTFOUND if the asset, its content object or its content is missing.
func (e *Engine) Content(ctx context.Context, id venue.AssetID) (*AssetContent, error) {
	meta, err := e.Asset(ctx, id)
	if err != nil {
		return nil, err
	}
	return e.ContentOf(ctx, id, meta)
}

// ContentOf opens the content that meta, the metadata of asset id (as
// ResolveAsset gives it, which may be held at a path rather than stored),
// names by its content.sha256.
func (e *Engine) ContentOf(ctx context.Context, id venue.AssetID, meta []byte) (*AssetContent, error) {
	ci, err := contentOf(meta, id)
	if errors.Is(err, errNoContent) {
		return nil, venue.Errorf(venue.ENOTFOUND, "Asset metadata does not specify any content object: %s", id)
	}
	if err != nil {
		return nil, err
	}
	body, size, err := e.store.Content(ctx, ci.sha)
	if venue.ErrorCode(err) == venue.ENOTFOUND {
		return nil, venue.Errorf(venue.ENOTFOUND, "Asset did not have any content available: %s", id)
	}
	if err != nil {
		return nil, err
	}
	return &AssetContent{Body: body, Size: size, SHA256: ci.sha, ContentType: ci.contentType, FileName: ci.fileName}, nil
}

// PutContent streams r into the asset's content, hashing as it goes, and
// keeps it only if the SHA-256 equals the metadata's content.sha256.
// Returns the hash as "0x" and hex. Returns ENOTFOUND for an unknown asset,
// EINVALID when the metadata has no content hash or the hash differs,
// ETOOLARGE past MaxContentSize; in every failure nothing is stored.
func (e *Engine) PutContent(ctx context.Context, id venue.AssetID, r io.Reader) (string, error) {
	c, err := e.caller(ctx)
	if err != nil {
		return "", err
	}
	if err := e.authorizeOwn(ctx, c, venue.AbilityAssetStore, venue.NSAssets); err != nil {
		return "", err
	}
	meta, err := e.Asset(ctx, id)
	if venue.ErrorCode(err) == venue.ENOTFOUND {
		// Metadata read from a lattice path names an asset, but content
		// is kept only for a registered one.
		return "", venue.Errorf(venue.ENOTFOUND, "Asset not found: %s; register its metadata as an asset first, then store its content", id)
	}
	if err != nil {
		return "", err
	}
	ci, err := contentOf(meta, id)
	if errors.Is(err, errNoContent) {
		return "", venue.Errorf(venue.EINVALID, "Metadata does not have content object specified: add content.sha256 to asset %s", id)
	}
	if err != nil {
		return "", err
	}
	up, err := e.store.NewContent(ctx, ci.sha, c.DID)
	if err != nil {
		return "", refusedAs("Cannot PUT asset content", err)
	}
	var w io.Writer = up
	checker := e.checkedAdapter(meta)
	tee := &moduleTee{limit: DefaultMaxModuleSize}
	if checker != nil {
		w = io.MultiWriter(up, tee)
	}
	sum, err := e.copyHashed(w, r)
	if err == nil && sum != ci.sha {
		err = hashMismatch(ci.sha, sum)
	}
	if err == nil && checker != nil {
		err = checker.CheckModule(ctx, tee.buf.Bytes())
	}
	if err != nil {
		up.Abort(context.WithoutCancel(ctx))
		return "", err
	}
	if err := up.Commit(ctx); err != nil {
		return "", refusedAs("Cannot PUT asset content", err)
	}
	return "0x" + hex.EncodeToString(sum[:]), nil
}

// emptySHA256 is the SHA-256 of no bytes.
var emptySHA256 = sha256.Sum256(nil)

// hashMismatch words content whose hash is not the metadata's, saying what
// to do: the body was empty, or not the file's raw bytes (curl's -d drops
// its newlines, -F wraps it in a form), or it is another file, which needs
// metadata of its own since an asset's metadata never changes.
func hashMismatch(want, got [32]byte) error {
	why := "send the file's raw bytes as the body (curl --data-binary @file or -T file; -d drops newlines and -F wraps the file in a form), or, if this is the file you mean, register new metadata whose content.sha256 is " + hex.EncodeToString(got[:]) + " (an asset's metadata cannot change)"
	if got == emptySHA256 {
		why = "the body was empty: send the file's bytes (curl --data-binary @file or -T file)"
	}
	return venue.Errorf(venue.EINVALID, "Cannot PUT asset content: Content hash mismatch. Expected: %x, got: %x: %s", want, got, why)
}

// refusedAs words the store's refusal of bytes past the caller's bound on
// assets as what was refused.
func refusedAs(what string, err error) error {
	if venue.ErrorCode(err) != venue.ETOOLARGE || strings.HasPrefix(venue.ErrorMessage(err), what+":") {
		return err
	}
	return venue.Errorf(venue.ETOOLARGE, "%s: %s", what, venue.ErrorMessage(err))
}

// MaxContentSize is the size of the largest asset content PutContent takes.
func (e *Engine) MaxContentSize() int64 { return e.cfg.MaxContentSize }

// copyHashed copies r into w, at most MaxContentSize bytes, and returns the
// SHA-256 of what was read.
func (e *Engine) copyHashed(w io.Writer, r io.Reader) ([32]byte, error) {
	h := sha256.New()
	limit := e.cfg.MaxContentSize
	sink := &writeErr{w: io.MultiWriter(w, h)}
	n, err := io.Copy(sink, io.LimitReader(r, limit+1))
	var sum [32]byte
	if err != nil {
		var ve *venue.Error
		if errors.As(err, &ve) { // the store's, as it stages what it is given
			return sum, refusedAs("Cannot PUT asset content", err)
		}
		if sink.err != nil {
			// The store failed, not the body: the caller's request was
			// fine, and the store's own words are for the operator's log.
			return sum, fmt.Errorf("Cannot PUT asset content: storing it failed after %d bytes: %w", n, err)
		}
		return sum, venue.Errorf(venue.EINVALID, "Cannot PUT asset content: reading the body failed after %d bytes: %v", n, err)
	}
	if n > limit {
		return sum, venue.Errorf(venue.ETOOLARGE, "Cannot PUT asset content: Content exceeds maximum size of %d bytes", limit)
	}
	copy(sum[:], h.Sum(nil))
	return sum, nil
}

// writeErr keeps the error of its writer, so that a copy's failure can be
// told apart from its reader's.
type writeErr struct {
	w   io.Writer
	err error
}

func (x *writeErr) Write(p []byte) (int, error) {
	n, err := x.w.Write(p)
	if err != nil && x.err == nil {
		x.err = err
	}
	return n, err
}

// fullMediaType reports whether ct, which mime.ParseMediaType accepted,
// has a type and a subtype, as a Content-Type must.
func fullMediaType(ct string) bool {
	mt, _, _ := mime.ParseMediaType(ct)
	typ, sub, ok := strings.Cut(mt, "/")
	return ok && typ != "" && sub != ""
}

var errNoContent = errors.New("no content object")

type contentInfo struct {
	sha         [32]byte
	contentType string
	fileName    string
}

// contentOf reads the content object of asset metadata.
func contentOf(meta []byte, id venue.AssetID) (contentInfo, error) {
	var m struct {
		Content *struct {
			SHA256      any `json:"sha256"`
			ContentType any `json:"contentType"`
			FileName    any `json:"fileName"`
		} `json:"content"`
	}
	var ci contentInfo
	if json.Unmarshal(meta, &m) != nil || m.Content == nil {
		return ci, errNoContent
	}
	hash, _ := m.Content.SHA256.(string)
	raw, err := hex.DecodeString(strings.TrimPrefix(hash, "0x"))
	if err != nil || len(raw) != 32 {
		return ci, venue.Errorf(venue.EINVALID, "Metadata does not have valid content hash: content.sha256 must be 64 hex digits (asset %s)", id)
	}
	copy(ci.sha[:], raw)
	ct, isString := m.Content.ContentType.(string)
	if m.Content.ContentType != nil && !isString {
		return ci, venue.Errorf(venue.EINVALID, "content.contentType must be a string such as \"application/json\" (asset %s)", id)
	}
	if ct == "" {
		ct = "application/octet-stream"
	}
	if _, _, err := mime.ParseMediaType(ct); err != nil {
		return ci, venue.Errorf(venue.EINVALID, "content.contentType %q is not a media type such as \"text/plain\" (asset %s)", ct, id)
	}
	ci.contentType = ct
	ci.fileName, _ = m.Content.FileName.(string)
	return ci, nil
}

// metaNames are the members of asset metadata the venue reads, in the
// object itself and in its operation and content objects.
var metaNames = map[string][]string{
	"":          {"name", "description", "operation", "content"},
	"operation": {"adapter", "input", "output", "secretFields", "toolName", "server", "remoteToolName", "bridge", "auth", "venueSecret"},
	"content":   {"sha256", "contentType", "fileName"},
}

// refuseMetaVariants refuses metadata with a member the venue would read
// in place of another: two names that differ only in letter case
// ("sha256" and "SHA256") in one of the objects it reads, or a name spelled
// unlike one it reads ("Input"). encoding/json matches names regardless of
// case, the last one winning, so the content hash or input schema anyone
// reads in the metadata would not be the one the venue holds to.
func refuseMetaVariants(meta []byte) error {
	for _, obj := range []string{"", "operation", "content"} {
		b := meta
		if obj != "" {
			var top map[string]json.RawMessage
			if json.Unmarshal(meta, &top) != nil || top[obj] == nil {
				continue
			}
			b = top[obj]
		}
		where := func(name string) string {
			if obj == "" {
				return name
			}
			return obj + "." + name
		}
		if x, y := jsonscan.CaseTwins(b); x != "" {
			return venue.Errorf(venue.EINVALID, "Metadata members %q and %q differ only in letter case, and the venue would read one for the other: keep one", where(x), where(y))
		}
		if got, want := jsonscan.CaseVariant(b, metaNames[obj]); got != "" {
			return venue.Errorf(venue.EINVALID, "Metadata member %q is spelled unlike %q, which the venue would read it as: write %q", where(got), where(want), want)
		}
	}
	return nil
}
