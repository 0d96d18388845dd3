// cprobereactor is a hostile test guest: a C reactor that calls WASI
// preview 1 directly, below any language runtime that might fake the
// answers (Go's net.Dial on wasip1 never reaches the host), to find a way
// out of the sandbox. It reports the errno of every attempt as JSON:
//
//	{"sock_accept":[8,8,...],"sock_recv":[...],"sock_send":[...],
//	 "sock_shutdown":[...],"prestat":[...],"prestat_name":[...],"open":[...],"opened":0}
//
// one entry per fd from 0 to 16 for the socket calls, fd_prestat_get and
// the length of the directory name a successful fd_prestat_get gives (-1
// after a failure), one per (fd, path) for path_open; "opened" counts the
// socket calls and opens that succeeded. WASI preview 1 has no call that
// opens a connection: the only sockets a guest can use are those the host
// pre-opened, as descriptors.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wasi/api.h>

#define EXPORT(name) __attribute__((export_name(name)))
#define MAX_FD 16

static char *in_buf;
static char out[8192];
static size_t n;    // bytes of out used
static int opened;  // socket calls and opens that succeeded

EXPORT("venue_abi_1") void venue_abi_1(void) {}

EXPORT("venue_alloc") char *venue_alloc(uint32_t size) {
	free(in_buf);
	in_buf = malloc(size);
	return in_buf;
}

static void put(const char *s) {
	size_t len = strlen(s);
	if (n + len < sizeof out) {
		memcpy(out + n, s, len);
		n += len;
	}
}

// number appends an array element.
static void number(int first, long v) {
	char num[24];
	snprintf(num, sizeof num, "%s%ld", first ? "" : ",", v);
	put(num);
}

// record appends one attempt's errno and counts a success.
static void record(int first, __wasi_errno_t err) {
	number(first, err);
	if (err == __WASI_ERRNO_SUCCESS)
		opened++;
}

static void sockets(void) {
	uint8_t byte = 0;
	__wasi_iovec_t iov = {&byte, 1};
	__wasi_ciovec_t ciov = {&byte, 1};
	__wasi_size_t got;
	__wasi_roflags_t roflags;
	__wasi_fd_t fd;
	put("\"sock_accept\":[");
	for (int i = 0; i <= MAX_FD; i++) {
		__wasi_errno_t err = __wasi_sock_accept(i, 0, &fd);
		record(i == 0, err);
		if (err == __WASI_ERRNO_SUCCESS)
			(void)__wasi_fd_close(fd);
	}
	put("],\"sock_recv\":[");
	for (int i = 0; i <= MAX_FD; i++)
		record(i == 0, __wasi_sock_recv(i, &iov, 1, 0, &got, &roflags));
	put("],\"sock_send\":[");
	for (int i = 0; i <= MAX_FD; i++)
		record(i == 0, __wasi_sock_send(i, &ciov, 1, 0, &got));
	put("],\"sock_shutdown\":[");
	for (int i = 0; i <= MAX_FD; i++)
		record(i == 0, __wasi_sock_shutdown(i, __WASI_SDFLAGS_RD | __WASI_SDFLAGS_WR));
	put("]");
}

static void files(void) {
	static const char *paths[] = {"/etc/passwd", "etc/passwd", "../../../../etc/passwd", ".", "/"};
	__wasi_prestat_t pre;
	__wasi_fd_t fd;
	long names[MAX_FD + 1];
	put(",\"prestat\":[");
	for (int i = 0; i <= MAX_FD; i++) {
		__wasi_errno_t err = __wasi_fd_prestat_get(i, &pre);
		number(i == 0, err);
		names[i] = err == __WASI_ERRNO_SUCCESS ? (long)pre.u.dir.pr_name_len : -1;
	}
	put("],\"prestat_name\":[");
	for (int i = 0; i <= MAX_FD; i++)
		number(i == 0, names[i]);
	put("],\"open\":[");
	int first = 1;
	for (int i = 0; i <= MAX_FD; i++) {
		for (size_t p = 0; p < sizeof paths / sizeof *paths; p++) {
			__wasi_errno_t err = __wasi_path_open(i, 0, paths[p], 0, __WASI_RIGHTS_FD_READ, 0, 0, &fd);
			record(first, err);
			first = 0;
			if (err == __WASI_ERRNO_SUCCESS)
				(void)__wasi_fd_close(fd);
		}
	}
	put("]");
}

EXPORT("venue_run") uint64_t venue_run(char *op, uint32_t op_len, char *in, uint32_t in_len) {
	n = 0;
	opened = 0;
	put("{");
	sockets();
	files();
	char tail[32];
	snprintf(tail, sizeof tail, ",\"opened\":%d}", opened);
	put(tail);
	return (uint64_t)(uintptr_t)out << 32 | (uint64_t)n;
}
