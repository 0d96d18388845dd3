// Package secret is the secret family of built-in operations: secret:set
// stores a secret for the job's caller through the host's secret.set. Its
// catalog entry marks "value" secret, so the job record never shows it.
package secret
