/* See passkeyd_io.h. */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "passkeyd_io.h"

#define REPORT_LEN 64
/* Never wait forever on a silent daemon: keepalives come every 100 ms. */
#define MAX_WAIT_MS 15000

struct handle {
	int fd;
};

static void *
io_open(const char *path)
{
	struct sockaddr_un sa;
	struct handle *h;

	if (strlen(path) >= sizeof(sa.sun_path))
		return NULL;
	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	strcpy(sa.sun_path, path);
	if ((h = calloc(1, sizeof(*h))) == NULL)
		return NULL;
	if ((h->fd = socket(AF_UNIX, SOCK_STREAM, 0)) < 0 ||
	    connect(h->fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		fprintf(stderr, "io_open %s: %s\n", path, strerror(errno));
		if (h->fd >= 0)
			close(h->fd);
		free(h);
		return NULL;
	}
	return h;
}

static void
io_close(void *handle)
{
	struct handle *h = handle;

	close(h->fd);
	free(h);
}

/* One 64-byte report; libfido2 passes len == 64 because we own the I/O. */
static int
io_read(void *handle, unsigned char *buf, size_t len, int ms)
{
	struct handle *h = handle;
	size_t got = 0;

	if (ms < 0 || ms > MAX_WAIT_MS)
		ms = MAX_WAIT_MS;
	while (got < len) {
		struct pollfd p = { .fd = h->fd, .events = POLLIN };
		int r = poll(&p, 1, ms);
		if (r <= 0)
			return -1; /* timeout or error; libfido2 reports FIDO_ERR_RX */
		ssize_t n = read(h->fd, buf + got, len - got);
		if (n <= 0)
			return -1;
		got += (size_t)n;
	}
	return (int)len;
}

/* libfido2 writes a leading report ID (0) and 64 bytes; the socket carries the 64. */
static int
io_write(void *handle, const unsigned char *buf, size_t len)
{
	struct handle *h = handle;
	size_t sent = 0;

	if (len != REPORT_LEN + 1 || buf[0] != 0)
		return -1;
	while (sent < REPORT_LEN) {
		ssize_t n = write(h->fd, buf + 1 + sent, REPORT_LEN - sent);
		if (n <= 0)
			return -1;
		sent += (size_t)n;
	}
	return (int)len;
}

const fido_dev_io_t passkeyd_socket_io = { io_open, io_close, io_read, io_write };

void
passkeyd_fill_random(unsigned char *p, size_t n)
{
	FILE *f = fopen("/dev/urandom", "rb");

	if (f == NULL || fread(p, 1, n, f) != n)
		abort();
	fclose(f);
}
