// creactor is a test guest: a C reactor (clang --target=wasm32-wasi
// -mexec-model=reactor) speaking the venue ABI with no library, standing in
// for small (Rust, TinyGo, Zig) guests. The input's "do" picks what it does.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EXPORT(name) __attribute__((export_name(name)))

static char *in_buf;      // the buffer venue_alloc handed out
static char out_buf[256]; // the last output or error

EXPORT("venue_abi_1") void venue_abi_1(void) {}

EXPORT("venue_alloc") char *venue_alloc(uint32_t size) {
	free(in_buf);
	in_buf = malloc(size);
	return in_buf;
}

static uint64_t reply(size_t n, int failed) {
	uint64_t len = (uint64_t)n | (failed ? 0x80000000u : 0);
	return (uint64_t)(uintptr_t)out_buf << 32 | len;
}

// number returns the integer after "key": in the input, or 0.
static long number(const char *in, const char *key) {
	const char *p = strstr(in, key);
	return p ? strtol(p + strlen(key), NULL, 10) : 0;
}

// text copies the string after "key":" in the input into dst.
static void text(const char *in, const char *key, char *dst, size_t cap) {
	const char *p = strstr(in, key);
	size_t n = 0;
	if (p)
		for (p += strlen(key); *p && *p != '"' && n + 1 < cap; p++)
			dst[n++] = *p;
	dst[n] = 0;
}

EXPORT("venue_run") uint64_t venue_run(char *op, uint32_t op_len, char *in, uint32_t in_len) {
	char input[1024], name[64];
	size_t n = in_len < sizeof input - 1 ? in_len : sizeof input - 1;
	memcpy(input, in, n);
	input[n] = 0;
	if (strstr(input, "\"do\":\"fail\""))
		return reply(snprintf(out_buf, sizeof out_buf, "the C guest refuses"), 1);
	if (strstr(input, "\"do\":\"trap\""))
		__builtin_trap();
	if (strstr(input, "\"do\":\"errpastmemory\"")) // an error message reaching past memory
		return (uint64_t)16 << 32 | 0x7fffffffu | 0x80000000u;
	if (strstr(input, "\"do\":\"deep\"")) { // valid JSON nested deeper than JSON readers take
		static char deep[20002];
		for (int i = 0; i < 10001; i++)
			deep[i] = '[', deep[20001 - i] = ']';
		return (uint64_t)(uintptr_t)deep << 32 | sizeof deep;
	}
	if (strstr(input, "\"do\":\"readfile\"")) {
		FILE *f = fopen("/etc/passwd", "r");
		return reply(snprintf(out_buf, sizeof out_buf, "{\"read\":%s}", f ? "true" : "false"), 0);
	}
	text(input, "\"name\":\"", name, sizeof name);
	return reply(snprintf(out_buf, sizeof out_buf, "{\"sum\":%ld,\"greeting\":\"hello %s\",\"op\":\"%.*s\"}",
	                      number(input, "\"a\":") + number(input, "\"b\":"), name, (int)op_len, op), 0);
}
