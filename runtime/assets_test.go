package runtime_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/runtime"
)

func artifactMeta(content []byte) string {
	sum := sha256.Sum256(content)
	return fmt.Sprintf(`{"name": "greeting", "content": {"contentType": "text/plain", "sha256": "%s"}}`, hex.EncodeToString(sum[:]))
}

func TestEngine_AssetMetadata(t *testing.T) {
	h := mustEngine(t)
	meta := `{"name": "x",   "description": "spaced  out"}`
	id, err := h.RegisterAsset(h.alice, []byte(meta))
	if err != nil {
		t.Fatal(err)
	}
	t.Run("metadata comes back byte for byte", func(t *testing.T) {
		got, err := h.Asset(h.alice, id)
		if err != nil || string(got) != meta {
			t.Fatalf("got %q %v", got, err)
		}
	})
	t.Run("the id ignores formatting", func(t *testing.T) {
		again, err := h.RegisterAsset(h.bob, []byte(`{"description":"spaced  out","name":"x"}`))
		if err != nil || again != id {
			t.Fatalf("id %s, want %s (%v)", again, id, err)
		}
	})
	t.Run("bad metadata is refused", func(t *testing.T) {
		for _, bad := range []string{`[1]`, `"s"`, `{"a":`, ``, `{"content": {"sha256": "xyz"}}`, `{"content": {"sha256": "` + strings.Repeat("a", 64) + `", "contentType": 5}}`} {
			_, err := h.RegisterAsset(h.alice, []byte(bad))
			wantCode(t, err, venue.EINVALID)
		}
	})
	// encoding/json would read "SHA256" for "sha256": the hash anyone reads
	// in the metadata would not be the one the upload is held to.
	t.Run("members the venue would read for others are refused", func(t *testing.T) {
		sha := strings.Repeat("a", 64)
		for _, tc := range []struct{ name, meta, want string }{
			{"a content hash beside its twin", `{"content":{"sha256":"` + sha + `","SHA256":"` + strings.Repeat("b", 64) + `"}}`,
				`Metadata members "content.SHA256" and "content.sha256" differ only in letter case, and the venue would read one for the other: keep one`},
			{"a content type alone", `{"content":{"sha256":"` + sha + `","ContentType":"text/html"}}`,
				`Metadata member "content.ContentType" is spelled unlike "content.contentType", which the venue would read it as: write "contentType"`},
			{"an input schema beside its twin", `{"operation":{"adapter":"test:echo","input":{"type":"object"},"Input":{}}}`,
				`Metadata members "operation.Input" and "operation.input" differ only in letter case, and the venue would read one for the other: keep one`},
			{"secret fields spelled with a long s", `{"operation":{"adapter":"test:echo","ſecretFields":[]}}`,
				`Metadata member "operation.ſecretFields" is spelled unlike "operation.secretFields", which the venue would read it as: write "secretFields"`},
			{"twins the venue does not read", `{"operation":{"adapter":"test:echo","note":1,"NOTE":2}}`,
				`Metadata members "operation.NOTE" and "operation.note" differ only in letter case, and the venue would read one for the other: keep one`},
			{"an operation object in another case", `{"Operation":{"adapter":"test:echo"}}`,
				`Metadata member "Operation" is spelled unlike "operation", which the venue would read it as: write "operation"`},
		} {
			t.Run(tc.name, func(t *testing.T) {
				_, err := h.RegisterAsset(h.alice, []byte(tc.meta))
				wantCode(t, err, venue.EINVALID)
				if err.Error() != tc.want {
					t.Fatalf("error %q\nwant  %q", err, tc.want)
				}
			})
		}
		// Data of the asset's own, at other depths, may use any names.
		if _, err := h.RegisterAsset(h.alice, []byte(`{"name":"d","data":{"A":1,"a":2},"operation":{"adapter":"test:echo","input":{"type":"object","properties":{"ID":{},"id":{}}}}}`)); err != nil {
			t.Fatalf("names below the objects the venue reads: %v", err)
		}
	})
	t.Run("unknown ids are not found", func(t *testing.T) {
		_, err := h.Asset(h.alice, venue.AssetID{9})
		wantCode(t, err, venue.ENOTFOUND)
	})
}

func TestEngine_AssetContent(t *testing.T) {
	h := mustEngine(t, func(c *runtime.Config) { c.MaxContentSize = 1 << 20 })
	content := bytes.Repeat([]byte("hello venue\n"), 50_000) // 600 kB, several chunks
	id, err := h.RegisterAsset(h.alice, []byte(artifactMeta(content)))
	if err != nil {
		t.Fatal(err)
	}
	t.Run("no content before upload", func(t *testing.T) {
		_, err := h.Content(h.alice, id)
		wantCode(t, err, venue.ENOTFOUND)
	})
	t.Run("a hash mismatch stores nothing", func(t *testing.T) {
		_, err := h.PutContent(h.alice, id, bytes.NewReader(content[1:]))
		wantCode(t, err, venue.EINVALID)
		if !strings.Contains(err.Error(), "Content hash mismatch") || !strings.Contains(err.Error(), "send the file's raw bytes as the body") {
			t.Fatal(err)
		}
		_, err = h.Content(h.alice, id)
		wantCode(t, err, venue.ENOTFOUND)
	})
	t.Run("an empty body is named as such", func(t *testing.T) {
		_, err := h.PutContent(h.alice, id, bytes.NewReader(nil))
		wantCode(t, err, venue.EINVALID)
		if !strings.Contains(err.Error(), "the body was empty") {
			t.Fatal(err)
		}
	})
	t.Run("matching content round-trips", func(t *testing.T) {
		sum, err := h.PutContent(h.alice, id, bytes.NewReader(content))
		if err != nil || !strings.HasPrefix(sum, "0x") {
			t.Fatalf("put: %s %v", sum, err)
		}
		c, err := h.Content(h.alice, id)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Body.Close()
		got, _ := io.ReadAll(c.Body)
		if !bytes.Equal(got, content) || c.Size != int64(len(content)) || c.ContentType != "text/plain" {
			t.Fatalf("got %d bytes, %s", len(got), c.ContentType)
		}
	})
	t.Run("content past the limit is refused", func(t *testing.T) {
		big := make([]byte, 1<<20+1)
		bigID, _ := h.RegisterAsset(h.alice, []byte(artifactMeta(big)))
		_, err := h.PutContent(h.alice, bigID, bytes.NewReader(big))
		wantCode(t, err, venue.ETOOLARGE)
	})
	t.Run("metadata without content cannot take content", func(t *testing.T) {
		plain, _ := h.RegisterAsset(h.alice, []byte(`{"name":"plain"}`))
		_, err := h.PutContent(h.alice, plain, strings.NewReader("x"))
		wantCode(t, err, venue.EINVALID)
		_, err = h.Content(h.alice, plain)
		wantCode(t, err, venue.ENOTFOUND)
	})
}

// TestEngine_ManyAssets checks the a namespace past what one read gathers:
// a read says it is truncated (never a stand-in map read as data), and
// list and slice page the assets themselves, in id order.
func TestEngine_ManyAssets(t *testing.T) {
	h := mustEngine(t)
	const n = 1002
	ids := make([]string, 0, n)
	for i := range n {
		id, err := h.RegisterAsset(h.alice, []byte(fmt.Sprintf(`{"name":"asset %d"}`, i)))
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id.String())
	}
	slices.Sort(ids)
	read, err := h.Read(h.alice, "a", 0)
	if err != nil || !read.Exists || !read.Truncated || read.Type != "Map" || string(read.Value) != "null" {
		t.Fatalf("read a: %+v, %v", read, err)
	}
	list, err := h.List(h.alice, "a", 1000, 5)
	if err != nil || list.Count != n || !slices.Equal(list.Keys, ids[1000:]) {
		t.Fatalf("list a: %+v, %v", list, err)
	}
	slice, err := h.Slice(h.alice, "a", 1001, 10)
	if err != nil || slice.Count != n || len(slice.Values) != 1 {
		t.Fatalf("slice a: %+v, %v", slice, err)
	}
	var e struct {
		Key   string
		Value struct{ Name string }
	}
	if json.Unmarshal(slice.Values[0], &e); e.Key != ids[1001] || !strings.HasPrefix(e.Value.Name, "asset ") {
		t.Fatalf("slice a entry: %s", slice.Values[0])
	}
}
