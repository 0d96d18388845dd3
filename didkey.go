package venue

import (
	"crypto/ed25519"
	"math/big"
	"strings"
)

// Multikey prefix of an Ed25519 public key: the multicodec varint 0xed 0x01.
var ed25519Multicodec = [2]byte{0xed, 0x01}

const base58Alphabet = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"

// Multikey returns an Ed25519 public key in multibase form (base58btc,
// multicodec-prefixed): "z6Mk...", as did:key and Multikey documents write it.
func Multikey(pub ed25519.PublicKey) string {
	b := append(ed25519Multicodec[:], pub...)
	return "z" + base58Encode(b)
}

// DIDKey returns the did:key DID of an Ed25519 public key.
func DIDKey(pub ed25519.PublicKey) string { return "did:key:" + Multikey(pub) }

// ParseDIDKey returns the Ed25519 public key a did:key DID names.
// Returns EINVALID for anything else.
func ParseDIDKey(did string) (ed25519.PublicKey, error) {
	mk, ok := strings.CutPrefix(did, "did:key:")
	if !ok || !strings.HasPrefix(mk, "z") || len(mk) > 64 {
		return nil, Errorf(EINVALID, "Not an Ed25519 did:key: %s", clip(did))
	}
	raw, ok := base58Decode(mk[1:])
	if !ok || len(raw) != 2+ed25519.PublicKeySize || raw[0] != ed25519Multicodec[0] || raw[1] != ed25519Multicodec[1] {
		return nil, Errorf(EINVALID, "Not an Ed25519 did:key: %s", clip(did))
	}
	return ed25519.PublicKey(raw[2:]), nil
}

func base58Encode(b []byte) string {
	n := new(big.Int).SetBytes(b)
	base, mod := big.NewInt(58), new(big.Int)
	var out []byte
	for n.Sign() > 0 {
		n.DivMod(n, base, mod)
		out = append(out, base58Alphabet[mod.Int64()])
	}
	for _, c := range b {
		if c != 0 {
			break
		}
		out = append(out, base58Alphabet[0])
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return string(out)
}

func base58Decode(s string) ([]byte, bool) {
	n, base := new(big.Int), big.NewInt(58)
	for _, r := range s {
		i := strings.IndexRune(base58Alphabet, r)
		if i < 0 {
			return nil, false
		}
		n.Mul(n, base).Add(n, big.NewInt(int64(i)))
	}
	zeros := len(s) - len(strings.TrimLeft(s, "1"))
	return append(make([]byte, zeros), n.Bytes()...), true
}
