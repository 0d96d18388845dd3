package venue

import (
	"encoding/binary"
	"encoding/hex"
	"strings"
	"unicode/utf8"
)

// JobID identifies a job: 16 bytes, the first six a millisecond timestamp so
// ids sort by creation time. It prints as "0x" and 32 hex digits.
type JobID [16]byte

// String returns the id as "0x" followed by 32 lowercase hex digits.
func (id JobID) String() string {
	var b [34]byte
	b[0], b[1] = '0', 'x'
	hex.Encode(b[2:], id[:])
	return string(b[:])
}

// Hex returns the 32 hex digits without a prefix.
func (id JobID) Hex() string { return hex.EncodeToString(id[:]) }

// MarshalText implements encoding.TextMarshaler.
func (id JobID) MarshalText() ([]byte, error) { return []byte(id.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler.
func (id *JobID) UnmarshalText(b []byte) error {
	v, err := ParseJobID(string(b))
	if err != nil {
		return err
	}
	*id = v
	return nil
}

// JobIDAt returns the id of a job created at ms (milliseconds since the
// epoch) with tail as its last eight bytes; the two between, which the
// engine fills with a count within the millisecond, are zero. With tail 0
// it is the smallest id of a job created at ms, so every job created
// earlier has a smaller one.
func JobIDAt(ms int64, tail uint64) JobID {
	var id JobID
	binary.BigEndian.PutUint64(id[:8], uint64(ms)<<16)
	binary.BigEndian.PutUint64(id[8:], tail)
	return id
}

// ParseJobID reads a job id with or without the "0x" prefix.
// Returns EINVALID if s is not 32 hex digits.
func ParseJobID(s string) (JobID, error) {
	var id JobID
	if err := decodeHex(s, id[:]); err != nil {
		return id, Errorf(EINVALID, "Invalid job id %q: want 32 hex digits, optionally prefixed with 0x", clip(s))
	}
	return id, nil
}

// AssetID identifies an asset: the SHA-256 of its metadata's canonical form.
// It prints as "0x" and 64 hex digits.
type AssetID [32]byte

// String returns the id as "0x" followed by 64 lowercase hex digits.
func (id AssetID) String() string { return "0x" + hex.EncodeToString(id[:]) }

// Hex returns the 64 hex digits without a prefix.
func (id AssetID) Hex() string { return hex.EncodeToString(id[:]) }

// ParseAssetID reads an asset id in any of the forms clients send: "0x" and 64
// hex digits, bare hex, "a/<hex>" or "/a/<hex>". Returns EINVALID otherwise.
func ParseAssetID(s string) (AssetID, error) {
	var id AssetID
	h, ok := strings.CutPrefix(s, "/a/")
	if !ok {
		h, _ = strings.CutPrefix(s, "a/")
	}
	if err := decodeHex(h, id[:]); err != nil {
		return id, Errorf(EINVALID, "Invalid asset ID: %s (want 64 hex digits, optionally prefixed with 0x or a/)", clip(s))
	}
	return id, nil
}

// decodeHex fills dst from s, which must hold exactly 2*len(dst) hex digits
// after an optional 0x prefix.
func decodeHex(s string, dst []byte) error {
	if len(s) >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') {
		s = s[2:]
	}
	if len(s) != 2*len(dst) {
		return hex.ErrLength
	}
	_, err := hex.Decode(dst, []byte(s))
	return err
}

// clip shortens untrusted text before it is echoed in an error message,
// cutting at a character boundary so the message stays valid UTF-8.
func clip(s string) string {
	const max = 100
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
