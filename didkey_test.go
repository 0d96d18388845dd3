package venue_test

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/hex"
	"math/big"
	"strings"
	"testing"

	venue "github.com/gridvenue/venue"
)

// The did:key of the Ed25519 key with the all-zero seed, a vector shared by
// many did:key implementations.
const (
	zeroSeedPubHex = "3b6a27bcceb6a42d62a3a8d02a6f0d73653215771de243a63ac048a18b59da29"
	zeroSeedDIDKey = "did:key:z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp"
)

func zeroSeedKey(tb testing.TB) ed25519.PublicKey {
	tb.Helper()
	pub := ed25519.NewKeyFromSeed(make([]byte, ed25519.SeedSize)).Public().(ed25519.PublicKey)
	if hex.EncodeToString(pub) != zeroSeedPubHex {
		tb.Fatalf("all-zero seed gives public key %x, want %s", pub, zeroSeedPubHex)
	}
	return pub
}

func TestDIDKey_KnownVector(t *testing.T) {
	pub := zeroSeedKey(t)
	did := venue.DIDKey(pub)
	if !strings.HasPrefix(did, "did:key:z6Mk") {
		t.Errorf("DIDKey = %q, want the did:key:z6Mk prefix of Ed25519", did)
	}
	if did != zeroSeedDIDKey {
		t.Errorf("DIDKey = %q, want %q", did, zeroSeedDIDKey)
	}
	if mk := venue.Multikey(pub); "did:key:"+mk != did {
		t.Errorf("Multikey = %q, want %q", mk, strings.TrimPrefix(did, "did:key:"))
	}
	back, err := venue.ParseDIDKey(zeroSeedDIDKey)
	if err != nil || !bytes.Equal(back, pub) {
		t.Errorf("ParseDIDKey = %x, %v; want %x", back, err, pub)
	}
}

func TestDIDKey_RoundTrip(t *testing.T) {
	keys := map[string]ed25519.PublicKey{
		"all zero":           make(ed25519.PublicKey, 32),
		"all 0xff":           ed25519.PublicKey(bytes.Repeat([]byte{0xff}, 32)),
		"leading zero bytes": ed25519.PublicKey(append(make([]byte, 5), bytes.Repeat([]byte{0x42}, 27)...)),
		"zero-seed key":      zeroSeedKey(t),
	}
	for i := range 50 {
		pub, _, err := ed25519.GenerateKey(rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		keys["random "+string(rune('A'+i%26))+string(rune('a'+i/26))] = pub
	}
	for name, pub := range keys {
		t.Run(name, func(t *testing.T) {
			did := venue.DIDKey(pub)
			if !strings.HasPrefix(did, "did:key:z6Mk") {
				t.Errorf("DIDKey = %q lacks the z6Mk prefix", did)
			}
			if n := len(did); n != len("did:key:")+48 {
				t.Errorf("DIDKey = %q is %d bytes, want %d", did, n, len("did:key:")+48)
			}
			back, err := venue.ParseDIDKey(did)
			if err != nil {
				t.Fatalf("ParseDIDKey(%q): %v", did, err)
			}
			if !bytes.Equal(back, pub) {
				t.Errorf("ParseDIDKey(DIDKey(k)) = %x, want %x", back, pub)
			}
		})
	}
}

func TestParseDIDKey_Rejects(t *testing.T) {
	mk := strings.TrimPrefix(zeroSeedDIDKey, "did:key:")
	key := []byte(zeroSeedKey(t))
	// secp256k1 (0xe7 0x01) key: a real did:key, but not Ed25519.
	const secp256k1 = "did:key:zQ3shokFTS3brHcDQrn82RUDfCZESWL1ZdCEJwekUDPQiYBme"
	// X25519 (0xec 0x01) key-agreement key.
	const x25519 = "did:key:z6LSbysY2xFMRpGMhb7tFTLMpeuPRaqaWM1yECx2AtzE3KCc"
	for _, tc := range []struct {
		name string
		in   string
	}{
		{"empty", ""},
		{"did:web", "did:web:venue.example"},
		{"wrong method prefix", "did:kee:" + mk},
		{"upper-case method", "DID:KEY:" + mk},
		{"no multibase prefix", "did:key:" + mk[1:]},
		{"base64url multibase", "did:key:u" + mk[1:]},
		{"invalid base58 character 0", "did:key:z6Mk0" + mk[5:]},
		{"invalid base58 character O", "did:key:z6MkO" + mk[5:]},
		{"invalid base58 character l", "did:key:z6Mkl" + mk[5:]},
		{"non-ASCII", "did:key:z6Mké" + mk[6:]},
		{"secp256k1 multicodec", secp256k1},
		{"x25519 multicodec", x25519},
		{"too short", "did:key:zTjsVPtY"},
		{"one character short", zeroSeedDIDKey[:len(zeroSeedDIDKey)-1]},
		{"one character long", zeroSeedDIDKey + "2"},
		{"fragment", zeroSeedDIDKey + "#" + mk},
		{"leading 1 (zero byte)", "did:key:z1" + mk[1:]},
		{"built x25519 multicodec", "did:key:z" + base58(append([]byte{0xec, 0x01}, key...))},
		{"built wrong second codec byte", "did:key:z" + base58(append([]byte{0xed, 0x02}, key...))},
		{"built 31-byte key", "did:key:z" + base58(append([]byte{0xed, 0x01}, key[:31]...))},
		{"built 33-byte key", "did:key:z" + base58(append([]byte{0xed, 0x01}, append(key, 7)...))},
		{"built key without codec", "did:key:z" + base58(key)},
		{"very long", "did:key:z" + strings.Repeat("2", 5000)},
		{"multikey alone", mk},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pub, err := venue.ParseDIDKey(tc.in)
			if err == nil {
				t.Fatalf("ParseDIDKey(%q) = %x, want an error", tc.in, pub)
			}
			if got := venue.ErrorCode(err); got != venue.EINVALID {
				t.Errorf("ErrorCode = %q, want %q", got, venue.EINVALID)
			}
			if !strings.HasPrefix(err.Error(), "Not an Ed25519 did:key: ") || len(err.Error()) > 200 {
				t.Errorf("message %q", err)
			}
		})
	}
}

// base58 encodes b in the Bitcoin alphabet, independently of the package,
// to build multibase values the package would never write.
func base58(b []byte) string {
	const alphabet = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
	n := new(big.Int).SetBytes(b)
	var out []byte
	for n.Sign() > 0 {
		m := new(big.Int)
		n.DivMod(n, big.NewInt(58), m)
		out = append([]byte{alphabet[m.Int64()]}, out...)
	}
	for _, c := range b {
		if c != 0 {
			break
		}
		out = append([]byte{'1'}, out...)
	}
	return string(out)
}

func TestBase58Helper_MatchesMultikey(t *testing.T) {
	pub := zeroSeedKey(t)
	if got, want := "z"+base58(append([]byte{0xed, 0x01}, pub...)), venue.Multikey(pub); got != want {
		t.Fatalf("test helper base58 = %q, Multikey = %q", got, want)
	}
}

func TestDIDKey_WrongLengthKeyDoesNotParse(t *testing.T) {
	for _, n := range []int{0, 1, 31, 33, 64} {
		did := venue.DIDKey(make(ed25519.PublicKey, n))
		if pub, err := venue.ParseDIDKey(did); err == nil {
			t.Errorf("%d-byte key: ParseDIDKey(%q) = %x, want an error", n, did, pub)
		}
	}
}

func FuzzParseDIDKey(f *testing.F) {
	for _, s := range []string{
		zeroSeedDIDKey, "did:key:z6Mk", "did:key:z", "did:key:", "", "did:key:z1111",
		"did:key:zQ3shokFTS3brHcDQrn82RUDfCZESWL1ZdCEJwekUDPQiYBme",
		"did:key:z6LSbysY2xFMRpGMhb7tFTLMpeuPRaqaWM1yECx2AtzE3KCc",
		zeroSeedDIDKey + "#x", "did:key:z0OIl", venue.DIDKey(make(ed25519.PublicKey, 32)),
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, did string) {
		pub, err := venue.ParseDIDKey(did)
		if err != nil {
			if venue.ErrorCode(err) != venue.EINVALID {
				t.Fatalf("ParseDIDKey(%q): code %q", did, venue.ErrorCode(err))
			}
			return
		}
		if len(pub) != ed25519.PublicKeySize {
			t.Fatalf("ParseDIDKey(%q) returned a %d-byte key", did, len(pub))
		}
		if got := venue.DIDKey(pub); got != did {
			t.Fatalf("DIDKey(ParseDIDKey(%q)) = %q", did, got)
		}
	})
}
