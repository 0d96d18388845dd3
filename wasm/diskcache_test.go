package wasm

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

func TestPruneDiskCache(t *testing.T) {
	old := time.Now().Add(-time.Hour)
	for _, tc := range []struct {
		name    string
		order   []string // files of 100 bytes, oldest first
		max     int64
		removed int
		left    []string
	}{
		{"under the bound nothing goes", []string{"wazero-v1/a", "wazero-v1/b"}, 300, 0,
			[]string{"wazero-v1/a", "wazero-v1/b"}},
		{"the oldest go first, to three quarters", []string{"wazero-v0/x", "wazero-v1/a", "wazero-v1/b", "wazero-v1/c"}, 300, 2,
			[]string{"wazero-v1/b", "wazero-v1/c"}},
		{"other files are left alone", []string{"mine.txt", "wazero-v1/a", "wazero-v1/b", "wazero-v1/c", "wazero-v1/d"}, 300, 2,
			[]string{"mine.txt", "wazero-v1/c", "wazero-v1/d"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for i, p := range tc.order {
				full := filepath.Join(dir, p)
				os.MkdirAll(filepath.Dir(full), 0o755)
				if err := os.WriteFile(full, make([]byte, 100), 0o644); err != nil {
					t.Fatal(err)
				}
				at := old.Add(time.Duration(i) * time.Minute)
				os.Chtimes(full, at, at)
			}
			removed, err := pruneDiskCache(dir, tc.max)
			if err != nil || removed != tc.removed {
				t.Fatalf("pruneDiskCache = %d, %v; want %d removed", removed, err, tc.removed)
			}
			var left []string
			filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
				if err == nil && d.Type().IsRegular() {
					rel, _ := filepath.Rel(dir, p)
					left = append(left, filepath.ToSlash(rel))
				}
				return nil
			})
			if !slices.Equal(left, tc.left) {
				t.Fatalf("left %q, want %q", left, tc.left)
			}
		})
	}
}
