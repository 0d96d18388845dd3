// Package storetest is the one test suite every runtime.Store must pass.
// Run it from a store's tests with a function that opens a fresh, empty
// store:
//
//	func TestStore(t *testing.T) {
//		storetest.Run(t, func(t *testing.T) runtime.Store { return mustOpen(t) })
//	}
//
// Each group of tests opens its own store, so counts and listings start
// from nothing. The suite checks every rule runtime/store.go states;
// behaviour a particular store adds (durability across reopen, LISTEN and
// NOTIFY, cleanup of staging) is tested beside that store.
package storetest
