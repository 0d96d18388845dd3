#!/usr/bin/env bash
# Renders the venue's /swagger and /redoc pages in headless Chromium and checks
# that each UI actually drew the OpenAPI document, not merely that the HTML
# loaded: a page whose script fails, or that depends on a CDN, still answers
# 200 but shows nothing.
#
# Usage: render.sh <base-url> [expected-path]
#   base-url       e.g. http://127.0.0.1:8080
#   expected-path  a path (or part of one) the document must list;
#                  default /api/v1/status
#
# Chromium may resolve only the venue's own host, so the check also proves the
# pages render without internet access; a Content-Security-Policy violation
# in the console (a page reaching beyond the venue) fails the check. Set CHROMIUM to use another binary.
# Exits 0 when both UIs rendered; otherwise prints why and exits 1 (2 for bad
# usage or a missing browser).
set -euo pipefail

usage() {
	echo "usage: render.sh <base-url> [expected-path]" >&2
	exit 2
}

[[ $# -ge 1 && $# -le 2 ]] || usage
base=${1%/}
expected=${2:-/api/v1/status}
chromium=${CHROMIUM:-chromium}
command -v "$chromium" >/dev/null || { echo "render.sh: $chromium not found (apt-get install -y chromium)" >&2; exit 2; }

authority=${base#*://}
authority=${authority%%/*}
host=${authority%:*}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

fail() {
	echo "render.sh: FAIL $*" >&2
	exit 1
}

# dump writes the DOM of $1 after the page's scripts ran to $2, and the
# browser's log, including the page's console, to $2.log.
dump() {
	local profile
	profile=$(mktemp -d -p "$work")
	timeout 120 "$chromium" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--user-data-dir="$profile" --virtual-time-budget=10000 \
		--host-resolver-rules="MAP * ~NOTFOUND, EXCLUDE $host" \
		--enable-logging=stderr --v=0 \
		--dump-dom "$1" >"$2" 2>"$2.log" || fail "$1: chromium exited with $? (log: see below)
$(tail -20 "$2.log")"
}

# console prints what the page logged, which explains most failures.
console() {
	grep -F ':CONSOLE' "$1.log" | sed 's/^.*:CONSOLE[^]]*] /  console: /' || true
}

# csp_clean fails when the page's console reports a Content-Security-Policy
# violation: the page tried to load something from beyond the venue.
csp_clean() {
	if grep -q ':CONSOLE.*Content Security Policy' "$1.log"; then
		console "$1"
		fail "$2: the page tried to load something its Content-Security-Policy blocks (see the console above)"
	fi
}

# count prints how often the regexp $1 matches in file $2; none is not an error.
count() {
	{ grep -o -- "$1" "$2" || true; } | wc -l
}

# listed reports whether the paths on stdin include the expected one.
listed() {
	grep -F -- "$expected" >/dev/null
}

check_swagger() {
	local dom=$work/swagger.html url=$base/swagger
	dump "$url" "$dom"
	grep -q '<div class="swagger-ui"' "$dom" || { console "$dom"; fail "$url: Swagger UI did not start (no .swagger-ui element)"; }
	! grep -q 'Failed to load API definition' "$dom" || { console "$dom"; fail "$url: Swagger UI could not load the document"; }
	local n
	n=$(count 'class="opblock-summary-path"' "$dom")
	((n > 0)) || { console "$dom"; fail "$url: Swagger UI rendered no operations (no opblock elements)"; }
	grep -o 'opblock-summary-path" data-path="[^"]*"' "$dom" | cut -d'"' -f3 | listed ||
		fail "$url: no rendered operation has a path containing $expected"
	csp_clean "$dom" "$url"
	echo "ok $url: Swagger UI rendered $n operations, including $expected"
	console "$dom"
}

check_redoc() {
	local dom=$work/redoc.html url=$base/redoc
	dump "$url" "$dom"
	! grep -q 'Something went wrong' "$dom" || { console "$dom"; fail "$url: ReDoc reported an error"; }
	grep -Eq 'class="([^"]* )?api-content[ "]' "$dom" || { console "$dom"; fail "$url: ReDoc rendered no api-content"; }
	local n
	# Operation anchors are #operation/<id>, or #tag/<tag>/operation/<id> when the document has tags.
	n=$(count '<h2[^>]*><a [^>]*href="#\(tag/[^/"]*/\)\{0,1\}operation/' "$dom")
	((n > 0)) || { console "$dom"; fail "$url: ReDoc rendered no operation headings"; }
	grep -o 'http-verb [a-z]*">[a-z]*</span><span[^>]*>[^<]*' "$dom" | sed 's/.*>//' | listed ||
		fail "$url: no rendered operation has a path containing $expected"
	csp_clean "$dom" "$url"
	echo "ok $url: ReDoc rendered $n operations, including $expected"
	console "$dom"
}

check_swagger
check_redoc
