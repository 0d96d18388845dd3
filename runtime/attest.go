package runtime

import (
	"crypto/hkdf"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
)

// Attest returns a tag proving that the venue itself wrote data for owner,
// for purpose. Lattice data an operation keeps for its caller (a bridge's
// record) is the caller's to read and, through any module the caller runs,
// to write: a tag kept beside it tells the venue's own writing from a
// module's, which cannot make one without the venue's key.
func (e *Engine) Attest(owner, purpose string, data []byte) string {
	key, err := hkdf.Key(sha256.New, e.id.Key.Seed(), []byte("venue attestations v1"), purpose, 32)
	if err != nil {
		return "" // not reached: HKDF fails only for lengths past its limit
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(owner))
	mac.Write([]byte{0})
	mac.Write(data)
	return base64.RawURLEncoding.EncodeToString(mac.Sum(nil))
}

// Attested reports whether tag is Attest's for owner, purpose and data.
func (e *Engine) Attested(owner, purpose string, data []byte, tag string) bool {
	want := e.Attest(owner, purpose, data)
	return want != "" && hmac.Equal([]byte(want), []byte(tag))
}
