package wasm

import (
	"cmp"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"
)

// wazero writes a file to its on-disk cache for every module it compiles
// and never removes one: refused uploads stay, and so do the files of every
// earlier wazero version. pruneDiskCache bounds the directory: once its
// files pass maxBytes, the least recently written go until three quarters
// of maxBytes remain. wazero does not touch a file it reads, so recently
// written is the nearest to recently used there is; a module pruned but
// still used compiles once more. Only wazero's own folders (wazero-*) are
// looked into: the directory is the operator's to name, and may hold
// other files.
func pruneDiskCache(dir string, maxBytes int64) (removed int, err error) {
	type file struct {
		path string
		size int64
		mod  time.Time
	}
	var files []file
	var total int64
	versions, err := filepath.Glob(filepath.Join(dir, "wazero-*"))
	for _, v := range versions {
		err = filepath.WalkDir(v, func(path string, d fs.DirEntry, err error) error {
			if err != nil || !d.Type().IsRegular() {
				return err
			}
			info, err := d.Info()
			if err != nil {
				return nil // removed meanwhile
			}
			files = append(files, file{path, info.Size(), info.ModTime()})
			total += info.Size()
			return nil
		})
		if err != nil {
			return 0, err
		}
	}
	if err != nil || total <= maxBytes {
		return 0, err
	}
	slices.SortFunc(files, func(a, b file) int { return cmp.Compare(a.mod.UnixNano(), b.mod.UnixNano()) })
	for _, f := range files {
		if total <= maxBytes/4*3 {
			break
		}
		if err := os.Remove(f.path); err != nil && !os.IsNotExist(err) {
			return removed, err
		}
		total -= f.size
		removed++
	}
	return removed, nil
}
