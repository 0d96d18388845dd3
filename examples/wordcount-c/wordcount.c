// wordcount: a venue operation written in C, using the reactor ABI of
// wasm/doc.go. Input {"text": "..."}; output {"words": n, "lines": n,
// "bytes": n}. A missing or non-string "text" is an error the job reports.
//
// Build: clang --target=wasm32-wasi -O2 -mexec-model=reactor -Wl,--strip-all \
//          -o wordcount.wasm wordcount.c
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EXPORT(name) __attribute__((export_name(name)))
#define IMPORT(name) __attribute__((import_module("venue"), import_name(name)))

// venue.log lets the operation log through the venue, tagged with its job.
IMPORT("log") void venue_log(int32_t level, const char *msg, int32_t len);

// The ABI marker export; never called.
EXPORT("venue_abi_1") void venue_abi_1(void) {}

static char *arg_buf;
static int32_t arg_cap;

// venue_alloc hands the host a buffer for the next call's arguments. It
// stays valid until the next venue_alloc, so it is reused while it fits.
EXPORT("venue_alloc") char *venue_alloc(int32_t size) {
	if (size > arg_cap) {
		free(arg_buf);
		arg_buf = malloc(size);
		arg_cap = arg_buf ? size : 0;
	}
	return arg_buf;
}

static char out[128];

// result packs ptr<<32 | len; bit 31 of len marks an error message.
static uint64_t result(const char *p, int32_t len, int failed) {
	uint32_t l = (uint32_t)len | (failed ? 0x80000000u : 0);
	return ((uint64_t)(uintptr_t)p << 32) | l;
}

static uint64_t fail(const char *msg) {
	return result(msg, (int32_t)strlen(msg), 1);
}

// find_text returns where the string value of the top-level key "text"
// starts (just after its opening quote), or NULL. It is deliberately
// small: it skips whitespace and expects a well-formed object, which the
// venue guarantees (it checks the input against the schema first).
static const char *find_text(const char *in, int32_t len) {
	const char *end = in + len;
	for (const char *p = in; p + 6 < end; p++) {
		if (memcmp(p, "\"text\"", 6) != 0)
			continue;
		p += 6;
		while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
			p++;
		if (p >= end || *p != ':')
			return NULL;
		p++;
		while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
			p++;
		return (p < end && *p == '"') ? p + 1 : NULL;
	}
	return NULL;
}

// venue_run counts words, lines and bytes of the JSON string "text",
// decoding its escapes as it goes (\n ends a line, \uXXXX counts the bytes
// of its UTF-8 form).
EXPORT("venue_run") uint64_t venue_run(char *op, int32_t op_len, char *in, int32_t in_len) {
	(void)op, (void)op_len;
	const char *p = find_text(in, in_len), *end = in + in_len;
	if (!p)
		return fail("input must be an object with a string field \"text\"");
	long words = 0, lines = 0, bytes = 0;
	int in_word = 0;
	while (p < end && *p != '"') {
		char c = *p++;
		int units = 1;
		if (c == '\\') {
			if (p >= end)
				break;
			c = *p++;
			if (c == 'n')
				c = '\n';
			else if (c == 't')
				c = '\t';
			else if (c == 'r')
				c = '\r';
			else if (c == 'u') {
				unsigned v = (unsigned)strtoul((char[]){p[0], p[1], p[2], p[3], 0}, NULL, 16);
				p += 4;
				// A surrogate pair is one 4-byte character: count it on
				// the high half, nothing on the low one.
				units = v < 0x80 ? 1 : v < 0x800 ? 2 : v < 0xD800 ? 3 : v < 0xDC00 ? 4 : v < 0xE000 ? 0 : 3;
				c = v < 0x80 ? (char)v : 'x';
			}
		}
		bytes += units;
		if (c == '\n')
			lines++;
		int space = c == ' ' || c == '\n' || c == '\t' || c == '\r';
		if (!space && !in_word)
			words++;
		in_word = !space;
	}
	if (p >= end)
		return fail("unterminated string in \"text\"");
	int n = snprintf(out, sizeof out, "{\"words\":%ld,\"lines\":%ld,\"bytes\":%ld}", words, lines, bytes);
	venue_log(1, "counted", 7);
	return result(out, n, 0);
}
