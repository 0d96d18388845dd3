package venue

import "strings"

// MaxSecretNameLen bounds a secret's name.
const MaxSecretNameLen = 128

// MaxSecretValueLen bounds a secret's value (64 KiB holds any API key,
// certificate or service-account document).
const MaxSecretValueLen = 64 << 10

// MaxSecrets bounds how many secrets one user keeps: their names are listed
// whole (GET /api/v1/secrets), and 1,000 hold a key for every service a
// user could connect many times over.
const MaxSecrets = 1000

// ValidSecretName reports whether name can name a secret: 1 to 128 letters,
// digits, '_', '-' or '.', starting with a letter or digit.
func ValidSecretName(name string) bool {
	return len(name) <= MaxSecretNameLen && isRegisteredName(name)
}

// CheckSecretName returns EINVALID with a message saying what a name may hold.
func CheckSecretName(name string) error {
	if !ValidSecretName(name) {
		return Errorf(EINVALID, "Invalid secret name %q: use 1 to %d letters, digits, '_', '-' or '.', starting with a letter or digit", clip(name), MaxSecretNameLen)
	}
	return nil
}

// ParseSecretRef reads a secret reference "s/NAME" (a bare NAME is accepted
// too, as the reference venue does) and returns NAME.
// Returns EINVALID if the name is not valid.
func ParseSecretRef(ref string) (string, error) {
	name := strings.TrimPrefix(strings.TrimPrefix(ref, "/s/"), "s/")
	if !ValidSecretName(name) {
		return "", Errorf(EINVALID, "Invalid secret reference %q: write s/NAME where NAME is letters, digits, '_', '-' or '.'", clip(ref))
	}
	return name, nil
}
