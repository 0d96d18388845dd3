// ccommand is a test guest: a plain C WASI command reading its input on
// stdin and writing its output on stdout.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void) {
	char in[1024];
	size_t n = fread(in, 1, sizeof in - 1, stdin);
	in[n] = 0;
	if (strstr(in, "\"do\":\"fail\"")) {
		fprintf(stderr, "  the C command refuses  \n");
		return 3;
	}
	const char *a = strstr(in, "\"a\":"), *b = strstr(in, "\"b\":");
	long sum = (a ? strtol(a + 4, NULL, 10) : 0) + (b ? strtol(b + 4, NULL, 10) : 0);
	printf("{\"sum\":%ld}\n", sum);
	return 0;
}
