//go:build race

package opstest

// slowdown is how much slower the host's Go code runs under the race
// detector, which instruments it (the guest's compiled code is not): a
// case that parses a large input host-side took 3.2 s of processor time
// there against well under one without it.
const slowdown = 4
