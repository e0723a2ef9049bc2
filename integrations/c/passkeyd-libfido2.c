/* See passkeyd-libfido2.h. */
#define _GNU_SOURCE /* struct ucred */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "passkeyd-libfido2.h"

/* A CTAPHID report on the socket (CTAP 2.1 §11.2.4, without USB's report ID). */
#define REPORT_LEN 64
/* Never wait forever on a silent daemon: keepalives come every 100 ms. */
#define MAX_WAIT_MS 15000

struct handle {
	int fd;
};

const char *
passkeyd_default_socket_path(void)
{
	static char path[PATH_MAX];
	const char *explicit = getenv("PASSKEYD_SOCKET");
	const char *runtime = getenv("XDG_RUNTIME_DIR");

	if (explicit != NULL && *explicit != '\0')
		snprintf(path, sizeof(path), "%s", explicit);
	else if (runtime != NULL && *runtime != '\0')
		snprintf(path, sizeof(path), "%s/passkeyd/ctaphid.sock", runtime);
	else
		snprintf(path, sizeof(path), "/tmp/passkeyd-%u/ctaphid.sock", (unsigned)getuid());
	return path;
}

/* The folder rule: a real directory (not a symlink) of ours that nobody else can write. */
static int
folder_is_trusted(const char *path)
{
	char copy[PATH_MAX];
	struct stat st;

	if (snprintf(copy, sizeof(copy), "%s", path) >= (int)sizeof(copy))
		return 0;
	if (lstat(dirname(copy), &st) != 0 || !S_ISDIR(st.st_mode)) {
		fprintf(stderr, "passkeyd-libfido2: the folder of %s is missing or not a real directory\n", path);
		return 0;
	}
	if (st.st_uid != getuid() || (st.st_mode & 022) != 0) {
		fprintf(stderr, "passkeyd-libfido2: refusing %s: its folder belongs to uid %u or others can write it (mode %o)\n",
		    path, (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777));
		return 0;
	}
	return 1;
}

/* The process at the other end runs as us (SO_PEERCRED, as the kernel saw it at listen). */
static int
peer_is_us(int fd, const char *path)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) {
		fprintf(stderr, "passkeyd-libfido2: refusing %s: the kernel will not say who serves it\n", path);
		return 0;
	}
	if (cred.uid != getuid()) {
		fprintf(stderr, "passkeyd-libfido2: refusing %s: it is served by uid %u, not by you\n", path, (unsigned)cred.uid);
		return 0;
	}
	return 1;
}

static void *
io_open(const char *path)
{
	struct sockaddr_un sa;
	struct handle *h;

	if (strlen(path) >= sizeof(sa.sun_path) || !folder_is_trusted(path))
		return NULL;
	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	memcpy(sa.sun_path, path, strlen(path) + 1);
	if ((h = calloc(1, sizeof(*h))) == NULL)
		return NULL;
	if ((h->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0 ||
	    connect(h->fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		fprintf(stderr, "passkeyd-libfido2: cannot open %s: %s (is passkeyd running? passkeyd --detach)\n",
		    path, strerror(errno));
		goto fail;
	}
	if (!peer_is_us(h->fd, path))
		goto fail;
	return h;
fail:
	if (h->fd >= 0)
		close(h->fd);
	free(h);
	return NULL;
}

static void
io_close(void *handle)
{
	struct handle *h = handle;

	close(h->fd);
	free(h);
}

/* One 64-byte report; libfido2 asks for exactly that since we own the I/O. */
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
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1; /* timeout or error; libfido2 reports FIDO_ERR_RX */
		ssize_t n = read(h->fd, buf + got, len - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		got += (size_t)n;
	}
	return (int)len;
}

/*
 * libfido2 writes a leading report ID (0) and 64 bytes; the socket carries the 64.
 * send(MSG_NOSIGNAL), not write: a daemon that hung up must cost the call FIDO_ERR_TX
 * (fido_dev_io_t's -1), not kill the program with SIGPIPE (ssh-keygen, pamtester and
 * every program under the preload keep their own SIGPIPE disposition).
 */
static int
io_write(void *handle, const unsigned char *buf, size_t len)
{
	struct handle *h = handle;
	size_t sent = 0;

	if (len != REPORT_LEN + 1 || buf[0] != 0)
		return -1;
	while (sent < REPORT_LEN) {
		ssize_t n = send(h->fd, buf + 1 + sent, REPORT_LEN - sent, MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		sent += (size_t)n;
	}
	return (int)len;
}

const fido_dev_io_t passkeyd_socket_io = { io_open, io_close, io_read, io_write };
