// Package wasm runs operations compiled to WebAssembly, sandboxed in
// wazero. It is the only package that imports wazero. Modules are compiled
// once and cached by content hash (beyond a bound the least recently used
// are dropped, never the venue's own); reactor instances are pooled per
// module (an uploaded module's instance never serves two callers, and is
// thrown away after a trap); every call runs under its job's deadline and
// the configured memory limit, with a cap on output size. The guest's only
// way out of the sandbox is the host module "venue".
//
// Every module, the venue's own and users', is rewritten before it is
// compiled so that the host can stop it (interrupt.go): a countdown at
// every function entry and loop head regularly reaches code of the host's,
// which lets the Go runtime collect garbage and traps once the call's
// context has ended. So a guest that loops is stopped at its deadline, at
// a fraction of the cost of wazero's own termination checks. There, too,
// uploaded code, and the venue's own once a call has computed 2 ms, takes
// turns on the processors it may use (Config.Processors, all but one by
// default: cpugate.go), so that the venue keeps one to answer its requests
// with however many guests compute.
//
// Compiling a 3 MB Go module takes a second or two; preparing it for
// wazero's interpreter, a tenth of that. So a module's calls start on the
// interpreter while it compiles, and those that begin once it has compiled
// run compiled (tiers.go; Config.WaitForCompile turns this off).
//
// # Reactor ABI (version 1)
//
// A reactor module is built as a library (Go: GOOS=wasip1 GOARCH=wasm
// -buildmode=c-shared; C: clang --target=wasm32-wasi -mexec-model=reactor)
// and exports:
//
//	memory                                      its linear memory
//	_initialize()                               optional; called once, first (WASI reactors)
//	venue_abi_1()                               marks the ABI version; never called, any signature;
//	                                            required: a module exporting venue_alloc and
//	                                            venue_run without it is refused
//	venue_alloc(size i32) -> ptr i32            a buffer of at least size bytes for the host to
//	                                            write the next call's arguments into; it stays
//	                                            valid until the next venue_alloc, so the host
//	                                            reuses it while it is large enough
//	venue_run(op_ptr, op_len, in_ptr, in_len i32) -> i64
//	                                            runs the operation named at op, its adapter as
//	                                            the catalog gives it ("core:read"; an uploaded
//	                                            module gets its metadata's operation.adapter,
//	                                            e.g. "wasm", and may ignore it) on the JSON
//	                                            input at in
//
// The host asks venue_alloc for powers of two of at least 4096 bytes, only
// when a call's op name and input together outgrow the buffer it has, so
// in steady state a call is one export call. It writes the op name at the
// buffer's start and the input right after it (in_ptr = op_ptr + op_len).
// venue_alloc must return a non-zero pointer to size bytes inside memory;
// anything else fails the call as a crash.
//
// venue_run returns ptr<<32 | len: the len bytes at ptr are the operation's
// output, a JSON value. If bit 31 of len is set, the operation failed and
// the len&0x7fffffff bytes at ptr are the error message (UTF-8 text), which
// becomes the job's error. The bytes stay valid until the next call into
// the instance. A trap fails the job ("operation crashed: ...") and the
// instance is discarded.
//
// The host checks what venue_run returns: bytes outside memory are a
// crash; output that is not JSON fails the job ("Operation returned output
// that is not JSON"); output over the host's MaxOutput (default 16 MiB)
// fails it with "output of N bytes exceeds the limit of M bytes" without
// being copied, and the instance is discarded. An error message is kept up
// to 64 KiB (then "…"), invalid UTF-8 replaced, and has code invalid
// unless it passes on a refusal of one of the call's host calls (see the
// host module's rules); an empty one reads "the operation failed without
// saying why". An instance
// whose memory has grown past half the limit is retired after its call.
//
// # Command ABI
//
// Any WASI command module (one that exports _start) works unmodified: the
// input JSON arrives on stdin, the output JSON is read from stdout, and a
// non-zero exit fails the job with its stderr as the error. A fresh instance
// runs each call. Command modules may import the venue host module too.
//
// _start returning or calling proc_exit(0) is success; stdout must then
// hold one JSON value (surrounding whitespace allowed) of at most
// MaxOutput bytes. On a non-zero exit the job's error is the first 4 KiB of
// stderr, trimmed, or "the operation exited with code N" if stderr is
// empty. What a call that succeeds writes on stderr (its first 4 KiB, of
// either ABI) goes to the venue's log as one line, "stderr: ...", tagged
// with the job, masked and within the caller's budget of log lines as
// venue.log's lines are. A module exporting both ABIs is run as a reactor,
// and must then export _initialize too: one exporting venue_run and _start
// without it was built as a command (Go without -buildmode=c-shared), whose
// runtime the reactor ABI would never initialise, and is refused.
//
// # Sandbox
//
// Every instance sees argv ["op"], one environment variable, GOMEMLIMIT
// (seven eighths of the memory limit, which a Go guest's collector heeds
// and other guests ignore), no preopened directories (every file open fails) and no sockets; real wall
// and monotonic clocks and crypto-random bytes. A sleep (poll_oneoff on a
// clock) lasts as asked unless the job's deadline or cancellation comes
// first, which ends the guest. Only
// functions may be imported, and only from wasi_snapshot_preview1 (as
// wazero implements it) and the venue host module below; anything else is
// refused when the module is compiled. A module must be WebAssembly 2.0
// (no threads, tail calls or exceptions), must not have a start section
// (export _initialize or _start instead, each taking and returning
// nothing), must not export the name venue_interrupt, which the host adds,
// and must stay within the static bounds of interruptcode.go (its tables
// together hold at most 2^20 references; functions of at most 7,654,321
// bytes; at most 4 million locals in all, 100,000 types and 100,000 data
// and element segments each). An upload is also instantiated once, without
// running any of its code, so that data or elements that do not fit are
// refused then rather than at every call. Its calls may
// nest up to a call stack of about 8 MiB (maxStackSlots: some 170,000
// calls of a function of one parameter); deeper, the job fails with "calls
// nested deeper than the venue allows". A guest that loops past its job's
// deadline is stopped and the job times out; one that grows its memory to
// the host's limit (default 64 MiB) fails with "operation ran out of
// memory (limit N MiB)".
//
// # Host module "venue"
//
// The guest reaches the venue only through these imports:
//
//	venue.call(req_ptr, req_len i32) -> i64     performs the host call whose JSON request is at
//	                                            req; returns the length of its JSON result, or
//	                                            minus the length of an error message
//	venue.result(ptr, len i32) -> i32           copies the pending result (or error message) of
//	                                            the last venue.call into the guest's buffer and
//	                                            returns the bytes copied
//	venue.log(level, ptr, len i32)              logs the text at ptr (level: 0 debug, 1 info,
//	                                            2 warn, 3 error), tagged with the job
//
// The two-step call keeps the host from calling into the guest while the
// guest calls the host (Go guests cannot be re-entered). A request is an
// object {"fn": name, ...arguments}, or {"fn": name, "args": {...}} when
// the guest forwards its operation's input unread as the arguments (what
// guest.Forward and guest.RegisterForward send; the host then words
// argument mistakes as the input's: "'path' is required", "core:read:
// 'path' must be a string, got number"). The functions are:
//
//	lattice.read    {path, maxSize?}             → {exists, value, valueBytes, truncated?, ...}
//	lattice.write   {path, value}                → {written: true}
//	lattice.delete  {path}                       → {deleted: bool}
//	lattice.append  {path, value}                → {appended: true, index}
//	lattice.list    {path, offset?, limit?}      → {exists, type, count, keys, offset}
//	lattice.slice   {path, offset?, limit?}      → {exists, type, count, values, offset}
//	lattice.copy    {from, to}                   → {copied: true}
//	http.request    {method, url, headers?, queryParams?, body?, bearerSecret?,
//	                 secretHeaders?, timeoutMs?} → {status, headers, body or bodyBase64, url}
//	secret.set      {name, value}                → {name, stored: true}
//
// All of them act as the job's caller, under its capabilities. Secrets are
// referenced, never read, and code a user uploaded may use (resolve or
// store) only the secrets its job's input names as "s/NAME" or in a
// {s/NAME} placeholder: the caller decides which of their secrets someone
// else's module may spend. Nor may such code change o/, w/ops or w/skills,
// where the caller keeps the operations and skills they name secrets for. http.request resolves "s/NAME" in
// bearerSecret, secretHeaders values and {s/NAME} placeholders in the URL
// on the host side, and masks every resolved value, in any URL or JSON
// escaping (the forms common encoders write, runtime/mask.go), out of
// the job's records and out of the answer: its headers, body and errors,
// and its url, which comes back with the placeholders in place of the
// values. The guest never holds a plaintext secret, even from a server
// that echoes what it was sent.
//
// The exact rules of the host module:
//
//   - Pointers and lengths are unsigned 32-bit. A range not wholly inside
//     memory, or a venue.call request or venue.log message over 16 MiB,
//     traps the guest ("operation crashed: venue.call: ...") and the
//     instance is discarded.
//   - venue.call never traps otherwise: an unknown fn, missing or mistyped
//     arguments, or a refusal by the venue make an error result. A call made
//     wrongly reads "<fn>: <why>" (e.g. `lattice.read: "path" is required`);
//     the venue's own refusals come in its exact words, unprefixed (e.g.
//     "URL targets a private/internal address: ..."), so that an operation
//     can pass them on as its error. An operation that fails with such a
//     refusal's words (as they are, or after its own words and ": ") keeps
//     the refusal's code: a capability denied ends the job REJECTED as it
//     would outside Wasm. A result is never empty; one over 16 MiB is an
//     error instead.
//   - venue.result copies the whole pending result and returns its length;
//     len must be at least that length. Each result is collected once: a
//     second venue.result, one with nothing pending, or one into a smaller
//     buffer traps. A venue.call whose result is not collected is replaced
//     by the next; results are dropped when venue_run returns.
//   - venue.call from _initialize, when no job runs, returns an error.
//     venue.log from _initialize logs to the job whose call made the
//     instance, and counts against its caller's budget of log lines.
//   - venue.log keeps the first 4 KiB of a message (then "…") and the first
//     1000 messages of a call; levels below 0 log as debug, above 3 as
//     error. Its range must lie in memory like the others'.
package wasm
