#!/usr/bin/env bash
# Generates a Go client from a running venue's /openapi with oapi-codegen,
# the generator ECOSYSTEM.md names for Go, and drives the REST API through
# it: every endpoint a program calls, their typed answers and their errors.
# A response that does not match its documented schema fails the decode in
# the generated client, so this checks the document against the venue.
#
# Usage: run.sh <base-url>    e.g. http://127.0.0.1:8080
# Needs Go and the Go module proxy (oapi-codegen is pinned as a tool in go.mod).
set -euo pipefail
[[ $# -eq 1 ]] || { echo "usage: run.sh <base-url>" >&2; exit 2; }
base=${1%/}
cd "$(dirname "$0")"
mkdir -p venueclient
curl -sf "$base/openapi" -o venueclient/openapi.json
go tool oapi-codegen -package venueclient -generate types,client -o venueclient/client.gen.go venueclient/openapi.json
go run . "$base"
