# The venue's tasks. `make run` and `make test` are all a fresh machine needs
# (Go 1.26 and the Go module proxy).

GO      ?= go
BIN     ?= bin
FUZZTIME ?= 10s
TESTFLAGS ?=

.PHONY: run test build bench ops fuzz race openapi clean

## run: start the venue on 127.0.0.1:8080 with a temporary store
# Built, then run directly rather than by go run, which does not pass
# SIGTERM on: stopping make (a supervisor, timeout) stops the venue too.
run: ops
	$(GO) build -o $(BIN)/venued-run ./cmd/venued
	$(BIN)/venued-run $(ARGS)

## test: vet and run every test (the Postgres suite runs when VENUE_TEST_POSTGRES is set;
## TESTFLAGS passes flags to go test, e.g. TESTFLAGS=-race)
test: ops
	$(GO) vet ./...
	$(GO) test $(TESTFLAGS) ./...

## race: the tests under the race detector
race: ops
	$(GO) test -race -timeout 20m ./...

## build: a static venued binary in bin/
build: ops
	CGO_ENABLED=0 $(GO) build -trimpath -o $(BIN)/venued ./cmd/venued

## bench: invoke throughput of the venue on SQLite and Postgres against a bare net/http handler
bench: ops
	$(GO) run ./tools/bench $(ARGS)

## ops: build the built-in Wasm operations (ops/*) into ops/build/builtin.wasm, which package ops embeds
ops: ops/build/builtin.wasm

OPS_SOURCES := $(shell find ops wasm/guest -name '*.go' -not -name '*_test.go') go.mod go.sum

ops/build/builtin.wasm: $(OPS_SOURCES)
	GOOS=wasip1 GOARCH=wasm $(GO) build -buildmode=c-shared -trimpath -ldflags='-s -w' -o $@ ./ops/builtin

## fuzz: run every fuzzer for FUZZTIME each (a duration, or a count of inputs such as 50000x)
# The fuzzers are found in the sources: asking `go test -list` would link
# every package's test binary only to list them.
fuzz:
	@find . -name node_modules -prune -o -name testdata -prune -o -name '*_test.go' -print | \
	  xargs grep -H '^func Fuzz' | sed -E 's#^(.*)/[^/]*:func (Fuzz[A-Za-z0-9_]*)\(.*#\1 \2#' | sort | \
	  while read -r dir f; do \
	    echo "== $$dir $$f"; $(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) $$dir || exit 1; \
	  done

## openapi: rewrite the pinned OpenAPI document after an intended API change
openapi:
	$(GO) test ./cmd/venued -run TestOpenAPIGolden -update

clean:
	rm -rf $(BIN) ops/build
