#!/usr/bin/env bash
# Runs the README's walk-through exactly as written against a venue already
# listening on localhost:8080, failing on any HTTP error, then checks the
# outcomes the README promises.
set -euo pipefail
readme=${1:-$(dirname "$0")/../../README.md}
script=$(sed -n '/<!-- walkthrough -->/,/<!-- \/walkthrough -->/p' "$readme" | sed '/^<!--/d; /^```/d')
[ -n "$script" ] || { echo "walkthrough: no walk-through block in $readme" >&2; exit 1; }
out=$(mktemp)
trap 'rm -f "$out"' EXIT
# Every curl of the walk-through must succeed: a 4xx or 5xx fails the run.
if ! bash -euo pipefail -c "curl() { command curl --fail-with-body \"\$@\"; }; $script" >"$out" 2>&1; then
  cat "$out"
  echo "walkthrough: a command failed" >&2
  exit 1
fi
for want in '"status":"COMPLETE"' '"output":{"hello":"world"}' 'event: job-update' '"status":"INPUT_REQUIRED"' \
  '"message":"Which colour?"' '{"reply":{"colour":"blue"}}' '"value":"HIDDEN"' 'hello, venue' '"name":"DEMO_TOKEN"'; do
  grep -qF -- "$want" "$out" || { cat "$out"; echo "walkthrough: output lacks $want" >&2; exit 1; }
done
if grep -qF 'tok-123456' "$out"; then
  echo "walkthrough: the secret value appeared in a response" >&2
  exit 1
fi
echo "walkthrough: ok ($(grep -c . "$out") lines of output)"
