package storetest

import (
	"crypto/sha256"
	"strings"
	"testing"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/runtime"
)

// MaxUserAssetsBytes is the bound on one owner's assets (metadata and
// content in bytes) that the stores Run tests must be opened with.
const MaxUserAssetsBytes = 2 << 20

// send starts an upload of data by owner and writes it in 64 KiB pieces,
// stopping at the first refusal, which it returns with the upload.
func send(t *testing.T, s runtime.Store, owner string, data []byte) (runtime.ContentUpload, error) {
	t.Helper()
	u, err := s.NewContent(t.Context(), sha256.Sum256(data), owner)
	if err != nil {
		return nil, err
	}
	for rest := data; len(rest) > 0; {
		k := min(64<<10, len(rest))
		if _, err := u.Write(rest[:k]); err != nil {
			u.Abort(t.Context())
			return u, err
		}
		rest = rest[k:]
	}
	return u, nil
}

// testAssetsUsage: metadata an owner registers and content an owner
// uploads that was not stored before count to the owner's assets; what
// would take them past MaxUserAssetsBytes fails with ETOOLARGE and stores
// nothing.
func testAssetsUsage(t *testing.T, s runtime.Store) {
	const max = MaxUserAssetsBytes
	refused := func(t *testing.T, err error) {
		t.Helper()
		if venue.ErrorCode(err) != venue.ETOOLARGE || !strings.Contains(err.Error(), "bytes one user may store") {
			t.Fatalf("error %v, want ETOOLARGE saying what one user may store", err)
		}
	}
	putMeta := func(owner string, size int) (venue.AssetID, bool, error) {
		meta := []byte(`{"m":"` + strings.Repeat("m", size-8) + `"}`)
		id := venue.AssetID(sha256.Sum256(meta))
		isNew, err := s.PutAsset(t.Context(), id, owner, meta, 1)
		return id, isNew, err
	}
	commit := func(t *testing.T, owner string, data []byte) error {
		t.Helper()
		u, err := send(t, s, owner, data)
		if err != nil {
			return err
		}
		return u.Commit(t.Context())
	}
	absent := func(t *testing.T, data []byte) {
		t.Helper()
		if _, _, err := s.Content(t.Context(), sha256.Sum256(data)); venue.ErrorCode(err) != venue.ENOTFOUND {
			t.Fatalf("Content of refused bytes: %v, want ENOTFOUND", err)
		}
	}
	t.Run("metadata counts to the byte", func(t *testing.T) {
		owner := "did:key:meta"
		if _, _, err := putMeta(owner, max-100); err != nil {
			t.Fatal(err)
		}
		id, _, err := putMeta(owner, 101)
		refused(t, err)
		if _, err := s.Asset(t.Context(), id); venue.ErrorCode(err) != venue.ENOTFOUND {
			t.Fatalf("the refused asset: %v, want ENOTFOUND", err)
		}
		if _, _, err := putMeta(owner, 100); err != nil {
			t.Fatalf("metadata that fits exactly: %v", err)
		}
	})
	t.Run("metadata stored already costs nothing", func(t *testing.T) {
		if _, _, err := putMeta("did:key:first", max/2); err != nil {
			t.Fatal(err)
		}
		if _, _, err := putMeta("did:key:full", max); err != nil {
			t.Fatal(err)
		}
		if _, isNew, err := putMeta("did:key:full", max/2); err != nil || isNew {
			t.Fatalf("PutAsset of stored metadata = %v, %v; want false, nil", isNew, err)
		}
	})
	t.Run("content counts to its uploader and stops at the bound", func(t *testing.T) {
		owner := "did:key:content"
		if err := commit(t, owner, randomBytes(max*3/5)); err != nil {
			t.Fatal(err)
		}
		big := randomBytes(max / 2)
		_, err := send(t, s, owner, big)
		refused(t, err)
		absent(t, big)
		if err := commit(t, owner, randomBytes(max-max*3/5)); err != nil {
			t.Fatalf("content that fits exactly: %v", err)
		}
		_, err = send(t, s, owner, []byte("x"))
		refused(t, err) // no room left: refused before a byte is sent
		if err := commit(t, owner, nil); err != nil {
			t.Fatalf("empty content with no room left: %v", err)
		}
	})
	t.Run("content stored already costs nothing", func(t *testing.T) {
		data := randomBytes(max / 2)
		if err := commit(t, "did:key:first", data); err != nil {
			t.Fatal(err)
		}
		if err := commit(t, "did:key:second", randomBytes(max*3/4)); err != nil {
			t.Fatal(err)
		}
		if err := commit(t, "did:key:second", data); err != nil {
			t.Fatalf("uploading stored content again: %v", err)
		}
	})
	t.Run("uploads that each fit but not together: the later commit is refused", func(t *testing.T) {
		owner := "did:key:together"
		a, b := randomBytes(max*3/5), randomBytes(max*3/5)
		ua, err := send(t, s, owner, a)
		if err != nil {
			t.Fatal(err)
		}
		ub, err := send(t, s, owner, b)
		if err != nil {
			t.Fatal(err)
		}
		if err := ua.Commit(t.Context()); err != nil {
			t.Fatal(err)
		}
		refused(t, ub.Commit(t.Context()))
		absent(t, b)
	})
	t.Run("metadata and content count together, owners apart", func(t *testing.T) {
		if _, _, err := putMeta("did:key:both", max/2+1); err != nil {
			t.Fatal(err)
		}
		_, err := send(t, s, "did:key:both", randomBytes(max*3/5))
		refused(t, err)
		if err := commit(t, "did:key:other", randomBytes(max*3/5)); err != nil {
			t.Fatal(err)
		}
	})
}
