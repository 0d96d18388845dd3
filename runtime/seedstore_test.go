package runtime_test

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/runtime"
	"github.com/gridvenue/venue/sql"
)

// TestEngine_ConfiguredSeedStaysOutOfTheStore: the seed opens every secret
// and signs the venue's tokens, so a seed the operator keeps apart (VENUE_SEED)
// must not be copied beside the ciphertexts: an audit decrypted every secret
// of a durable SQLite file, and the venue's copy of a bridge token, from the
// seed kept in its meta table. A copy an earlier version kept is deleted, and
// a store whose key was configured is not given a new key when started
// without it.
func TestEngine_ConfiguredSeedStaysOutOfTheStore(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "venue.db")
	seed := bytes.Repeat([]byte{0x5e}, 32)
	// start runs a venue on path; its close stops the venue and its store.
	type venueRun struct {
		*runtime.Engine
		close func()
	}
	start := func(seed []byte) (venueRun, string, error) {
		var logs bytes.Buffer
		st := openFile(t, path)
		e, err := runtime.New(context.Background(), runtime.Config{SingleNode: true, Seed: seed},
			runtime.Deps{Store: st, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
		if err != nil {
			st.Close()
			return venueRun{}, logs.String(), err
		}
		return venueRun{e, func() { e.Close(); st.Close() }}, logs.String(), nil
	}
	onDisk := func() bool {
		for _, name := range []string{"venue.db", "venue.db-wal"} {
			b, _ := os.ReadFile(filepath.Join(dir, name))
			if bytes.Contains(b, seed) {
				return true
			}
		}
		return false
	}

	e, _, err := start(seed)
	if err != nil {
		t.Fatal(err)
	}
	alice := venue.WithCaller(context.Background(), venue.Caller{DID: "did:key:z6MkAlice"})
	if err := e.PutSecret(alice, "TOKEN", "tok-0123456789"); err != nil {
		t.Fatal(err)
	}
	want := e.Identity().Key
	e.close()
	if onDisk() {
		t.Fatal("the configured seed was written to the store")
	}

	e, logs, err := start(seed)
	if err != nil {
		t.Fatal(err)
	}
	if !e.Identity().Key.Equal(want) || strings.Contains(logs, "the configured seed") {
		t.Fatalf("the same seed again: key changed or warned:\n%s", logs)
	}
	e.close()

	if _, _, err := start(nil); venue.ErrorCode(err) != venue.EINVALID || !strings.Contains(err.Error(), "give the same seed") {
		t.Fatalf("started without the configured seed: %v; want EINVALID asking for it", err)
	}
	other := bytes.Repeat([]byte{0x11}, 32)
	if _, _, err := start(other); venue.ErrorCode(err) != venue.EINVALID || !strings.Contains(err.Error(), "not the one this store was started with before") {
		t.Fatalf("started with another seed: %v; want EINVALID asking for the same seed", err)
	}
	if e, _, err = start(seed); err != nil || !e.Identity().Key.Equal(want) {
		t.Fatalf("the first seed after another was refused: %v", err)
	}
	e.close()

	// A store where an earlier version kept the configured seed.
	path = filepath.Join(t.TempDir(), "legacy.db")
	dir = filepath.Dir(path)
	st := openFile(t, path)
	if _, err := st.PutMetaIfAbsent(context.Background(), "venue.ed25519.seed", seed); err != nil {
		t.Fatal(err)
	}
	st.Close()
	e, logs, err = start(seed)
	if err != nil {
		t.Fatal(err)
	}
	if !e.Identity().Key.Equal(ed25519.NewKeyFromSeed(seed)) || !strings.Contains(logs, "copy is replaced") {
		t.Fatalf("legacy store: wrong key or logs:\n%s", logs)
	}
	e.close()
	st = openFile(t, path)
	// In its place a value an earlier version, started without the seed,
	// stops on rather than make a new key.
	kept, err := st.Meta(context.Background(), "venue.ed25519.seed")
	st.Close()
	if err != nil || bytes.Contains(kept, seed) || len(kept) == ed25519.SeedSize {
		t.Fatalf("the kept copy of the configured seed: %x, %v; want a value of another size", kept, err)
	}
	e, _, err = start(seed)
	if err != nil {
		t.Fatalf("a start with the seed after it moved out: %v", err)
	}
	e.close()
}

// failingPublicKey is a store whose write of the venue's public key fails,
// as a start cut short there would leave it.
type failingPublicKey struct{ *sql.Store }

func (s failingPublicKey) PutMetaIfAbsent(ctx context.Context, key string, value []byte) ([]byte, error) {
	if key == "venue.ed25519.public" {
		return nil, errors.New("the store went away")
	}
	return s.Store.PutMetaIfAbsent(ctx, key, value)
}

// TestEngine_OtherSeedOnAStoreWithItsOwnKey: a seed configured on a store
// that keeps its own key, and is not that key, is refused before anything
// is written. It had been taken with a warning, and its public key
// recorded: every later start without a seed was then refused, though the
// store still kept the key its secrets were sealed under. Configuring the
// store's own key moves it out of the store.
func TestEngine_OtherSeedOnAStoreWithItsOwnKey(t *testing.T) {
	path := filepath.Join(t.TempDir(), "venue.db")
	start := func(seed []byte) (ed25519.PrivateKey, error) {
		st := openFile(t, path)
		defer st.Close()
		e, err := runtime.New(context.Background(), runtime.Config{SingleNode: true, Seed: seed}, runtime.Deps{Store: st})
		if err != nil {
			return nil, err
		}
		defer e.Close()
		return e.Identity().Key, nil
	}
	own, err := start(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		seed []byte
		want string // the refusal; "" for a start with the store's own key
	}{
		{"another seed is refused", bytes.Repeat([]byte{0x11}, 32), "not the venue key this store keeps"},
		{"and leaves the store as it was: a start without a seed uses its key", nil, ""},
		{"a seed of the wrong size is refused", []byte{1, 2, 3}, "must be 32 bytes"},
		{"the store's own key, configured, is taken (and moved out)", own.Seed(), ""},
		{"from then on another seed is refused as not the recorded one", bytes.Repeat([]byte{0x22}, 32), "not the one this store was started with before"},
		{"and a start without one asks for it", nil, "give the same seed"},
		{"the store's key, configured again, still starts", own.Seed(), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			key, err := start(tc.seed)
			switch {
			case tc.want == "" && (err != nil || !key.Equal(own)):
				t.Fatalf("%v; want a start with the store's own key", err)
			case tc.want != "" && (venue.ErrorCode(err) != venue.EINVALID || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("%v; want EINVALID saying %q", err, tc.want)
			}
		})
	}
}

// TestEngine_ConfiguredSeedStartCutShort: a start with the configured seed
// on a store where an earlier version kept it, cut short before the
// public key is stored, must not leave the store without both: a later
// start without the seed would then make a new key that opens none of the
// store's secrets.
func TestEngine_ConfiguredSeedStartCutShort(t *testing.T) {
	path := filepath.Join(t.TempDir(), "legacy.db")
	seed := bytes.Repeat([]byte{0x5e}, 32)
	st := openFile(t, path)
	if _, err := st.PutMetaIfAbsent(context.Background(), "venue.ed25519.seed", seed); err != nil {
		t.Fatal(err)
	}
	if _, err := runtime.New(context.Background(), runtime.Config{SingleNode: true, Seed: seed}, runtime.Deps{Store: failingPublicKey{st}}); err == nil {
		t.Fatal("a start whose store failed went on")
	}
	e, err := runtime.New(context.Background(), runtime.Config{SingleNode: true}, runtime.Deps{Store: st})
	if err == nil {
		defer e.Close()
		if !e.Identity().Key.Equal(ed25519.NewKeyFromSeed(seed)) {
			t.Fatal("a start without the seed, after one cut short, made a new key")
		}
	} else if venue.ErrorCode(err) != venue.EINVALID {
		t.Fatal(err)
	}
	st.Close()
}

// TestEngine_SeedConfiguredBeforeItWasRecorded: versions before the kept
// copy and the public key recorded nothing of a configured seed, so a
// store they ran with one holds sealed secrets and no key. Started without
// the seed it must be refused, not given a new key (which opens none of
// its secrets and, kept, binds the store to it); with the seed it starts.
func TestEngine_SeedConfiguredBeforeItWasRecorded(t *testing.T) {
	path := filepath.Join(t.TempDir(), "early.db")
	seed := bytes.Repeat([]byte{0x7a}, 32)
	start := func(seed []byte) (*runtime.Engine, *sql.Store, error) {
		st := openFile(t, path)
		e, err := runtime.New(context.Background(), runtime.Config{SingleNode: true, Seed: seed},
			runtime.Deps{Store: st, Logger: slog.New(slog.DiscardHandler)})
		if err != nil {
			st.Close()
			return nil, nil, err
		}
		return e, st, nil
	}
	e, st, err := start(seed)
	if err != nil {
		t.Fatal(err)
	}
	alice := venue.WithCaller(context.Background(), venue.Caller{DID: "did:key:z6MkAlice"})
	if err := e.PutSecret(alice, "TOKEN", "tok-0123456789"); err != nil {
		t.Fatal(err)
	}
	e.Close()
	// As an early version left it: the secret, and nothing of the key.
	if err := st.DeleteMeta(context.Background(), "venue.ed25519.public"); err != nil {
		t.Fatal(err)
	}
	st.Close()

	if _, _, err := start(nil); venue.ErrorCode(err) != venue.EINVALID || !strings.Contains(err.Error(), "give the same seed") {
		t.Fatalf("started without the seed its secrets were sealed under: %v; want EINVALID asking for it", err)
	}
	st = openFile(t, path)
	_, err = st.Meta(context.Background(), "venue.ed25519.seed")
	st.Close()
	if venue.ErrorCode(err) != venue.ENOTFOUND {
		t.Fatalf("a refused start kept a key: %v", err)
	}
	e, st, err = start(seed)
	if err != nil {
		t.Fatalf("a start with the seed: %v", err)
	}
	if !e.Identity().Key.Equal(ed25519.NewKeyFromSeed(seed)) {
		t.Fatal("wrong key")
	}
	e.Close()
	st.Close()
}
