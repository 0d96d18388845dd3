// Package guest is the SDK for operations compiled to WebAssembly and run by
// the venue's wasm host (package wasm; its doc.go is the ABI contract). A
// guest program registers its operations by adapter name and is built as a
// reactor library:
//
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o op.wasm ./myop
//
//	func init() {
//		guest.Register("wasm:hello", func(in json.RawMessage) (any, error) {
//			var p struct{ Name string `json:"name"` }
//			if err := json.Unmarshal(in, &p); err != nil {
//				return nil, guest.Errorf("input must be {name}: %v", err)
//			}
//			return map[string]string{"greeting": "hello " + p.Name}, nil
//		})
//	}
//
//	func main() {} // a reactor's main never runs; the package needs one
//
// The name is the operation's adapter as the venue calls it: for a module
// uploaded as an operation, its metadata's operation.adapter, so the module
// above is registered with "adapter": "wasm:hello" (one registering "wasm"
// goes with "adapter": "wasm"). Build it with -buildmode=c-shared: without
// it the module is a command whose Go runtime a reactor call never starts,
// and the venue refuses it.
//
// On wasip1 the package exports the reactor ABI (venue_abi_1, venue_alloc,
// venue_run) and imports the host module "venue" (call, result, log); Call
// and Log reach the host through them. A handler's output is marshalled to
// JSON; its error's text becomes the job's error as is.
//
// An operation that is one host function applied to its input needs no
// handler: RegisterForward("core:read", "lattice.read") makes it that call,
// and the guest then allocates nothing per call.
//
// Everything except the ABI glue compiles on every GOOS, so that programs
// importing it can be vetted and their pure logic tested natively; there
// Call and Log have no host and fail (Call) or do nothing (Log).
package guest
