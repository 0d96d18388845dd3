//go:build !race

package opstest

// slowdown is 1 without the race detector (see race.go).
const slowdown = 1
