package runtime_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/runtime"
)

const secretValue = "sk-test-4f9a8b7c6d5e"

func TestEngine_Secrets(t *testing.T) {
	h := mustEngine(t)
	if err := h.PutSecret(h.alice, "OPENAI_KEY", secretValue); err != nil {
		t.Fatal(err)
	}
	t.Run("names are listed, per caller", func(t *testing.T) {
		if names, _ := h.SecretNames(h.alice); len(names) != 1 || names[0] != "OPENAI_KEY" {
			t.Fatalf("alice's names %v", names)
		}
		if names, _ := h.SecretNames(h.bob); len(names) != 0 {
			t.Fatalf("bob sees %v", names)
		}
	})
	t.Run("the store holds no plaintext", func(t *testing.T) {
		sealed, _, err := h.store.Secret(context.Background(), "did:key:alice", "OPENAI_KEY")
		if err != nil || bytes.Contains(sealed, []byte(secretValue)) {
			t.Fatalf("stored %q (%v)", sealed, err)
		}
	})
	t.Run("a sealed value moved to another owner does not open", func(t *testing.T) {
		sealed, updated, _ := h.store.Secret(context.Background(), "did:key:alice", "OPENAI_KEY")
		h.store.PutSecret(context.Background(), "did:key:bob", "OPENAI_KEY", sealed, updated, 0)
		j := h.invokeAs(t, h.bob, "v/test/ops/reveal", `{"secret": "s/OPENAI_KEY"}`)
		if j.Status != venue.StatusFailed || strings.Contains(j.Error, secretValue) {
			t.Fatalf("bob opened alice's sealed secret: %s %q %s", j.Status, j.Error, j.Output)
		}
	})
	t.Run("bad names are refused", func(t *testing.T) {
		for _, name := range []string{"", "a/b", "with space", strings.Repeat("x", 200), "..", "-lead"} {
			wantCode(t, h.PutSecret(h.alice, name, "v"), venue.EINVALID)
		}
	})
	t.Run("oversized values are refused", func(t *testing.T) {
		wantCode(t, h.PutSecret(h.alice, "BIG", strings.Repeat("x", venue.MaxSecretValueLen+1)), venue.ETOOLARGE)
	})
	t.Run("values too short to mask are refused", func(t *testing.T) {
		for _, v := range []string{"", "a", "ab3", "€€€"} {
			err := h.PutSecret(h.alice, "SHORT", v)
			wantCode(t, err, venue.EINVALID)
			if !strings.Contains(venue.ErrorMessage(err), "shorter values cannot be masked reliably in job records") {
				t.Errorf("refusing %q: %v", v, err)
			}
		}
		if names, _ := h.SecretNames(h.alice); len(names) != 1 {
			t.Errorf("a refused value was stored: %v", names)
		}
		if err := h.PutSecret(h.alice, "FOUR", "4chr"); err != nil {
			t.Errorf("four characters: %v", err)
		}
	})
	t.Run("a short value stored before is never used", func(t *testing.T) {
		for _, v := range []string{"", "Q#z"} {
			if err := h.PutSecretUnchecked(context.Background(), "did:key:alice", "OLD", v); err != nil {
				t.Fatal(err)
			}
			j := h.invoke(t, "v/test/ops/reveal", `{"secret": "s/OLD"}`, time.Minute)
			b, _ := json.Marshal(j)
			if j.Status != venue.StatusFailed || !strings.Contains(j.Error, "Secret OLD is shorter than 4 characters, too short to be masked in job records") ||
				v != "" && strings.Contains(string(b), v) {
				t.Fatalf("a short value %q was used: %s", v, b)
			}
		}
	})
	t.Run("delete ends access", func(t *testing.T) {
		h.PutSecret(h.alice, "TEMP", "temporary-value")
		if err := h.DeleteSecret(h.alice, "TEMP"); err != nil {
			t.Fatal(err)
		}
		wantCode(t, h.DeleteSecret(h.alice, "TEMP"), venue.ENOTFOUND)
		j := h.invoke(t, "v/test/ops/reveal", `{"secret": "s/TEMP"}`, time.Minute)
		if j.Status != venue.StatusFailed || !strings.Contains(j.Error, "Secret not found: TEMP") {
			t.Fatalf("a deleted secret still resolves: %s %q", j.Status, j.Error)
		}
	})
}

func TestEngine_SecretsAreMaskedInRecords(t *testing.T) {
	h := mustEngine(t)
	h.PutSecret(h.alice, "TOKEN", secretValue)
	t.Run("a resolved secret in the output", func(t *testing.T) {
		j := h.invoke(t, "v/test/ops/reveal", `{"secret": "s/TOKEN"}`, time.Minute)
		if j.Status != venue.StatusComplete {
			t.Fatalf("%s %q", j.Status, j.Error)
		}
		h.assertNoSecret(t, j.ID)
		if !strings.Contains(string(j.Output), runtime.Hidden) {
			t.Fatalf("output %s lacks the mask", j.Output)
		}
	})
	t.Run("secret-marked input and output fields", func(t *testing.T) {
		j := h.invoke(t, "v/test/ops/echo", `{"secret": "`+secretValue+`", "plain": 1}`, time.Minute)
		if string(j.Input) != `{"plain":1,"secret":"HIDDEN"}` || string(j.Output) != `{"plain":1,"secret":"HIDDEN"}` {
			t.Fatalf("input %s output %s", j.Input, j.Output)
		}
		h.assertNoSecret(t, j.ID)
	})
	t.Run("metadata copying an adapter keeps its secret fields", func(t *testing.T) {
		bare := `{"name":"bare echo","operation":{"adapter":"test:echo","input":{"type":"object"},"secretFields":["plain"]}}`
		if err := h.Write(h.alice, "o/bare-echo", json.RawMessage(bare)); err != nil {
			t.Fatal(err)
		}
		asset, err := h.RegisterAsset(h.alice, []byte(`{"name":"bare echo","operation":{"adapter":"test:echo"}}`))
		if err != nil {
			t.Fatal(err)
		}
		for ref, want := range map[string]string{
			"o/bare-echo":      `{"plain":"HIDDEN","secret":"HIDDEN"}`, // the union of both lists
			"a/" + asset.Hex(): `{"plain":1,"secret":"HIDDEN"}`,
			"v/test/ops/echo":  `{"plain":1,"secret":"HIDDEN"}`,
		} {
			j := h.invoke(t, ref, `{"secret": "`+secretValue+`", "plain": 1}`, time.Minute)
			if string(j.Input) != want || string(j.Output) != want {
				t.Errorf("%s: input %s output %s, want %s", ref, j.Input, j.Output, want)
			}
			h.assertNoSecret(t, j.ID)
		}
	})
}

// assertNoSecret checks that neither alice's record in memory nor the
// stored row holds secretValue, anywhere in the prev chain.
func (h *harness) assertNoSecret(t *testing.T, id venue.JobID) {
	t.Helper()
	j, _ := h.Job(h.alice, id)
	b, _ := json.Marshal(j)
	row, err := h.store.Job(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(b, []byte(secretValue)) || bytes.Contains(row.Record, []byte(secretValue)) {
		t.Fatalf("secret in job record: %s", row.Record)
	}
}

func (h *harness) invokeAs(t *testing.T, ctx context.Context, op, input string) *venue.Job {
	t.Helper()
	j, err := h.Invoke(ctx, runtime.InvokeRequest{Operation: op, Input: json.RawMessage(input), Wait: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	return j
}

// TestEngine_SecretsBounded: a user keeps at most venue.MaxSecrets secrets;
// past it a new one is refused with 409 words, while replacing a kept one,
// and storing one after a delete, still work.
func TestEngine_SecretsBounded(t *testing.T) {
	h := mustEngine(t)
	for i := range venue.MaxSecrets {
		// Straight into the store: a thousand puts through the engine each
		// list the names they count.
		if err := h.store.PutSecret(context.Background(), "did:key:alice", fmt.Sprintf("KEY_%04d", i), []byte("x"), 1, 0); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name, secret, wantCode string
		before                 func()
	}{
		{"a new secret past the bound", "ONE_MORE", venue.ECONFLICT, nil},
		{"replacing a kept one", "KEY_0007", "", nil},
		{"another user is not bounded by it", "", "", nil},
		{"a new one once one is deleted", "ONE_MORE", "", func() {
			if err := h.DeleteSecret(h.alice, "KEY_0001"); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.before != nil {
				tc.before()
			}
			caller, name := h.alice, tc.secret
			if name == "" {
				caller, name = h.bob, "KEY_0000"
			}
			err := h.PutSecret(caller, name, secretValue)
			wantCode(t, err, tc.wantCode)
			if tc.wantCode != "" && !strings.Contains(venue.ErrorMessage(err), "You keep 1000 secrets, the most a user may") {
				t.Fatalf("message %q", venue.ErrorMessage(err))
			}
		})
	}
}

// TestEngine_SecretsBoundedUnderRacingPuts: new secrets put at once, with
// room for one, store one: the count and the put are one turn per owner.
// Each put counted first and stored after, so as many passed the bound as
// raced.
func TestEngine_SecretsBoundedUnderRacingPuts(t *testing.T) {
	h := mustEngine(t)
	for i := range venue.MaxSecrets - 1 {
		if err := h.store.PutSecret(context.Background(), "did:key:alice", fmt.Sprintf("KEY_%04d", i), []byte("x"), 1, 0); err != nil {
			t.Fatal(err)
		}
	}
	var stored atomic.Int64
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			err := h.PutSecret(h.alice, fmt.Sprintf("RACER_%d", i), secretValue)
			switch venue.ErrorCode(err) {
			case "":
				stored.Add(1)
			case venue.ECONFLICT:
			default:
				t.Errorf("racer %d: %v", i, err)
			}
		})
	}
	wg.Wait()
	names, err := h.store.SecretNames(context.Background(), "did:key:alice")
	if err != nil {
		t.Fatal(err)
	}
	if stored.Load() != 1 || len(names) != venue.MaxSecrets {
		t.Fatalf("%d of 8 racing puts stored, %d names kept; want 1 and %d", stored.Load(), len(names), venue.MaxSecrets)
	}
}
