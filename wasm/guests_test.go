package wasm

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// mustGuest returns the module built from testdata/<name>: Go sources with
// the Go toolchain (GOOS=wasip1 GOARCH=wasm; -buildmode=c-shared for a
// reactor), C sources with clang and wasi-libc. Builds are cached under
// os.TempDir by a hash of the sources and toolchain, so only a change
// rebuilds. A missing clang skips the test.
func mustGuest(tb testing.TB, name string) []byte {
	tb.Helper()
	dir := filepath.Join("testdata", name)
	args, env := buildCommand(tb, dir)
	key := sourceHash(tb, dir, strings.Join(args, " "))
	out := filepath.Join(os.TempDir(), "venue-wasm-guests", name+"-"+key+".wasm")
	if b, err := os.ReadFile(out); err == nil {
		return b
	}
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		tb.Fatal(err)
	}
	f, err := os.CreateTemp(filepath.Dir(out), name+"-*.tmp")
	if err != nil {
		tb.Fatal(err)
	}
	f.Close()
	tmp := f.Name()
	defer os.Remove(tmp)
	cmd := exec.Command(args[0], append(args[1:], "-o", tmp, "./"+filepath.ToSlash(dir))...)
	if isC(dir) {
		cmd = exec.Command(args[0], append(args[1:], "-o", tmp, filepath.Join(dir, "main.c"))...)
	}
	cmd.Env = append(os.Environ(), env...)
	if msg, err := cmd.CombinedOutput(); err != nil {
		tb.Fatalf("build guest %s: %v\n%s", name, err, msg)
	}
	if err := os.Rename(tmp, out); err != nil {
		tb.Fatal(err)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// buildCommand is the compiler invocation for the guest in dir (without
// output and input) and its environment. A directory with a main.c holds a
// C guest; a name ending in "reactor" is built as a reactor.
func buildCommand(tb testing.TB, dir string) ([]string, []string) {
	tb.Helper()
	name := filepath.Base(dir)
	if isC(dir) {
		if _, err := exec.LookPath("clang"); err != nil {
			tb.Skip("clang is not installed: C guests need clang, lld and wasi-libc")
		}
		args := []string{"clang", "--target=wasm32-wasi", "-O2", "-Wl,--strip-all"}
		if strings.HasSuffix(name, "reactor") {
			args = append(args, "-mexec-model=reactor")
		}
		return args, nil
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		tb.Skip("go is not on PATH: Go guests need the Go toolchain")
	}
	args := []string{gobin, "build", "-trimpath"}
	if strings.HasSuffix(name, "reactor") {
		args = append(args, "-buildmode=c-shared")
	}
	return args, []string{"GOOS=wasip1", "GOARCH=wasm", "CGO_ENABLED=0"}
}

func sourceHash(tb testing.TB, dir, how string) string {
	tb.Helper()
	h := sha256.New()
	h.Write([]byte(how + "\x00" + runtime.Version() + "\x00"))
	files, err := os.ReadDir(dir)
	if err != nil {
		tb.Fatal(err)
	}
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(dir, f.Name()))
		if err != nil {
			tb.Fatal(err)
		}
		h.Write([]byte(f.Name() + "\x00"))
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

func isC(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, "main.c"))
	return err == nil
}
