package runtime

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"unicode/utf8"

	venue "github.com/gridvenue/venue"
)

// Secrets are sealed with AES-256-GCM under a key per owner, derived with
// HKDF-SHA256 from the venue's Ed25519 seed and the owner's DID. Only this
// venue identity can open them, and a sealed value copied to another owner's
// row, or renamed, fails to open because owner and name are the GCM
// additional data.

const sealVersion = 1

// PutSecret stores the caller's secret, replacing any of the same name.
// Returns EINVALID if the name or value breaks the rules.
func (e *Engine) PutSecret(ctx context.Context, name, value string) error {
	c, err := e.caller(ctx)
	if err != nil {
		return err
	}
	if err := e.authorizeOwn(ctx, c, venue.AbilityWrite, venue.NSSecrets); err != nil {
		return err
	}
	if err := venue.CheckSecretName(name); err != nil {
		return err
	}
	if err := checkSecretValue(value); err != nil {
		return err
	}
	sealed, err := e.seal(c.DID, name, value)
	if err != nil {
		return err
	}
	e.touchUser(ctx, c.DID)
	return e.store.PutSecret(ctx, c.DID, name, sealed, e.ms(), venue.MaxSecrets)
}

// checkSecretValue bounds a value to store. A value shorter than
// minMasked characters is refused: the masker cannot hide it in job
// records without blanking innocent text, so it would show.
func checkSecretValue(value string) error {
	if len(value) > venue.MaxSecretValueLen {
		return venue.Errorf(venue.ETOOLARGE, "Secret value is %d bytes; the limit is %d", len(value), venue.MaxSecretValueLen)
	}
	if tooShort(value) {
		return venue.Errorf(venue.EINVALID, "Secret value must be at least %d characters: shorter values cannot be masked reliably in job records", minMasked)
	}
	return nil
}

// tooShort reports whether v has fewer than minMasked characters (and so
// fewer than minMasked bytes, the masker's own bound).
func tooShort(v string) bool { return utf8.RuneCountInString(v) < minMasked }

// SecretNames lists the caller's secret names. Values are never returned.
func (e *Engine) SecretNames(ctx context.Context) ([]string, error) {
	c, err := e.caller(ctx)
	if err != nil {
		return nil, err
	}
	if err := e.authorizeOwn(ctx, c, venue.AbilityRead, venue.NSSecrets); err != nil {
		return nil, err
	}
	return e.store.SecretNames(ctx, c.DID)
}

// DeleteSecret removes the caller's secret, ending every use of it.
// Returns ENOTFOUND if the caller has no such secret.
func (e *Engine) DeleteSecret(ctx context.Context, name string) error {
	c, err := e.caller(ctx)
	if err != nil {
		return err
	}
	if err := e.authorizeOwn(ctx, c, venue.AbilityDelete, venue.NSSecrets); err != nil {
		return err
	}
	if err := venue.CheckSecretName(name); err != nil {
		return err
	}
	return e.store.DeleteSecret(ctx, c.DID, name)
}

// openSecret returns the plaintext of owner's secret. It is the venue's one
// decryption point. Returns ENOTFOUND if there is no such secret.
func (e *Engine) openSecret(ctx context.Context, owner, name string) (string, error) {
	sealed, _, err := e.store.Secret(ctx, owner, name)
	if venue.ErrorCode(err) == venue.ENOTFOUND {
		return "", venue.Errorf(venue.ENOTFOUND, "Secret not found: %s", name)
	}
	if err != nil {
		return "", err
	}
	aead, err := e.ownerKey(owner)
	if err != nil {
		return "", err
	}
	ns := aead.NonceSize()
	if len(sealed) < 1+ns || sealed[0] != sealVersion {
		return "", venue.Errorf(venue.EINTERNAL, "Secret %s is stored in a form this venue cannot read", name)
	}
	plain, err := aead.Open(nil, sealed[1:1+ns], sealed[1+ns:], secretAD(owner, name))
	if err != nil {
		return "", venue.Errorf(venue.EINTERNAL, "Secret %s cannot be opened with this venue's key", name)
	}
	if tooShort(string(plain)) {
		// Stored before values this short were refused: used, it would
		// show in the job's records, so it is not used at all.
		return "", venue.Errorf(venue.EINVALID, "Secret %s is shorter than %d characters, too short to be masked in job records: store a longer value (PUT /api/v1/secrets/%s)", name, minMasked, name)
	}
	return string(plain), nil
}

func (e *Engine) seal(owner, name, value string) ([]byte, error) {
	aead, err := e.ownerKey(owner)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 1+aead.NonceSize(), 1+aead.NonceSize()+len(value)+aead.Overhead())
	out[0] = sealVersion
	rand.Read(out[1:])
	return aead.Seal(out, out[1:], []byte(value), secretAD(owner, name)), nil
}

func (e *Engine) ownerKey(owner string) (cipher.AEAD, error) {
	if k, ok := e.keys.load(owner); ok {
		return k, nil
	}
	key, err := hkdf.Key(sha256.New, e.id.Key.Seed(), []byte("venue secrets v1"), owner, 32)
	if err != nil {
		return nil, err
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	e.keys.store(owner, aead)
	return aead, nil
}

func secretAD(owner, name string) []byte { return []byte(owner + "\x00" + name) }
