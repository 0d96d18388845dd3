package storetest

import (
	"bytes"
	"crypto/rand"
	"slices"
	"testing"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/runtime"
)

func newAssetID() venue.AssetID {
	var id venue.AssetID
	rand.Read(id[:])
	return id
}

func testAssets(t *testing.T, s runtime.Store) {
	id := newAssetID()
	meta := []byte("{ \"name\" : \"x\",\n  \"b\":1, \"a\":\"\\u00e9\" }")
	t.Run("unknown asset is not found", func(t *testing.T) {
		_, err := s.Asset(t.Context(), id)
		wantCode(t, err, venue.ENOTFOUND)
	})
	t.Run("first put is new", func(t *testing.T) {
		if isNew, err := s.PutAsset(t.Context(), id, alice, meta, 1700000000000); err != nil || !isNew {
			t.Fatalf("PutAsset = %v, %v; want true", isNew, err)
		}
	})
	t.Run("metadata comes back byte for byte", func(t *testing.T) {
		got, err := s.Asset(t.Context(), id)
		if err != nil || !bytes.Equal(got, meta) {
			t.Fatalf("Asset = %q, %v; want %q", got, err, meta)
		}
	})
	t.Run("second put is not new and changes nothing", func(t *testing.T) {
		if isNew, err := s.PutAsset(t.Context(), id, bob, []byte(`{"other":true}`), 1800000000000); err != nil || isNew {
			t.Fatalf("PutAsset = %v, %v; want false", isNew, err)
		}
		if got, _ := s.Asset(t.Context(), id); !bytes.Equal(got, meta) {
			t.Fatalf("Asset = %q after second put, want %q", got, meta)
		}
	})
}

func testListAssets(t *testing.T, s runtime.Store) {
	var ids []venue.AssetID
	for range 5 {
		id := newAssetID()
		ids = append(ids, id)
		if _, err := s.PutAsset(t.Context(), id, alice, []byte(`{}`), 1); err != nil {
			t.Fatal(err)
		}
	}
	slices.SortFunc(ids, func(a, b venue.AssetID) int { return bytes.Compare(a[:], b[:]) })
	for _, tc := range []struct {
		name          string
		offset, limit int
		want          []venue.AssetID
	}{
		{"negative limit returns all in id order", 0, -1, ids},
		{"first page", 0, 2, ids[:2]},
		{"middle page", 2, 2, ids[2:4]},
		{"last page is partial", 4, 3, ids[4:]},
		{"offset past the end returns none", 9, 3, nil},
		{"zero limit returns none", 0, 0, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, total, err := s.ListAssets(t.Context(), tc.offset, tc.limit)
			if err != nil {
				t.Fatal(err)
			}
			if total != 5 || len(got) != len(tc.want) || (len(got) > 0 && !slices.Equal(got, tc.want)) {
				t.Fatalf("ListAssets = %x, %d; want %x, 5", got, total, tc.want)
			}
		})
	}
}
