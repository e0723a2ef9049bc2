/*
 * libpasskeyd-preload.so: passkeyd as a device of any program linked against libfido2,
 * without changing the program (LD_PRELOAD; `passkeyctl exec -- COMMAND` sets it up).
 *
 * Programs find keys with fido_dev_info_manifest and open one with fido_dev_open on the
 * path it listed. Both are wrapped here:
 *
 *   - fido_dev_info_manifest lists what the real libfido2 found, then passkeyd as one more
 *     entry, "passkeyd:<socket>", when that socket exists;
 *   - fido_dev_open on a "passkeyd:" path gives the device the socket io functions of
 *     integrations/c (fido_dev_set_io_functions) before the real fido_dev_open runs;
 *   - fido_dev_new_with_info on that entry gets the same io functions marked as the
 *     device's own, so fido_dev_open_with_info also works.
 *
 * Everything else, and every other path, is the real libfido2 (dlsym RTLD_NEXT). The socket
 * is $PASSKEYD_SOCKET, else passkeyd's default; before a byte is sent the adapter checks that
 * its folder is ours and that passkeyd runs as us, and says why when it refuses.
 */
#define _GNU_SOURCE /* RTLD_NEXT */
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <fido.h>

#include "passkeyd-libfido2.h"

/* The scheme of passkeyd's entry in the device list; the socket's path follows it. */
#define PREFIX "passkeyd:"
#define PREFIX_LEN (sizeof(PREFIX) - 1)
#define MANUFACTURER "passkeyd"
#define PRODUCT "software FIDO2 authenticator"

typedef int manifest_fn(fido_dev_info_t *, size_t, size_t *);
typedef int open_fn(fido_dev_t *, const char *);
typedef fido_dev_t *new_with_info_fn(const fido_dev_info_t *);

/* The real libfido2 (linked as this library's dependency, so loaded before it runs). */
static manifest_fn *real_manifest;
static open_fn *real_open;
static new_with_info_fn *real_new_with_info;
/* The adapter's io functions, opening "passkeyd:<socket>" as <socket>. */
static fido_dev_io_t socket_io;

static int
is_passkeyd_path(const char *path)
{
	return path != NULL && strncmp(path, PREFIX, PREFIX_LEN) == 0;
}

static void *
open_listed(const char *path)
{
	return passkeyd_socket_io.open(is_passkeyd_path(path) ? path + PREFIX_LEN : path);
}

static void *
next(const char *name)
{
	void *f = dlsym(RTLD_NEXT, name);

	if (f == NULL)
		fprintf(stderr, "libpasskeyd-preload: the real libfido2 has no %s: %s\n", name, dlerror());
	return f;
}

__attribute__((constructor)) static void
find_real_libfido2(void)
{
	real_manifest = (manifest_fn *)next("fido_dev_info_manifest");
	real_open = (open_fn *)next("fido_dev_open");
	real_new_with_info = (new_with_info_fn *)next("fido_dev_new_with_info");
	socket_io = passkeyd_socket_io;
	socket_io.open = open_listed;
}

int
fido_dev_info_manifest(fido_dev_info_t *devlist, size_t ilen, size_t *olen)
{
	char path[PATH_MAX];
	const char *socket = passkeyd_default_socket_path();
	struct stat st;
	int r;

	if (real_manifest == NULL)
		return FIDO_ERR_INTERNAL;
	r = real_manifest(devlist, ilen, olen);
	if (r != FIDO_OK)
		*olen = 0; /* hidraw enumeration failed (no udev in a container): passkeyd still counts */
	/* Listed only while a socket is there: a stale variable must not invent a key. */
	if (*olen >= ilen || stat(socket, &st) != 0 || !S_ISSOCK(st.st_mode))
		return r;
	if (snprintf(path, sizeof(path), PREFIX "%s", socket) >= (int)sizeof(path))
		return r;
	if (fido_dev_info_set(devlist, *olen, path, MANUFACTURER, PRODUCT, &socket_io, NULL) != FIDO_OK)
		return r;
	*olen += 1;
	return FIDO_OK;
}

int
fido_dev_open(fido_dev_t *dev, const char *path)
{
	int r;

	if (real_open == NULL)
		return FIDO_ERR_INTERNAL;
	if (is_passkeyd_path(path) && (r = fido_dev_set_io_functions(dev, &socket_io)) != FIDO_OK)
		return r;
	return real_open(dev, path);
}

/*
 * libfido2 takes a listed device's io functions as the device's own (64-byte reports, no
 * hidraw descriptor to ask) only when the entry also has transport functions; ours leave
 * CTAPHID framing to libfido2, so the new device is told so explicitly.
 */
fido_dev_t *
fido_dev_new_with_info(const fido_dev_info_t *di)
{
	fido_dev_t *dev;

	if (real_new_with_info == NULL)
		return NULL;
	if ((dev = real_new_with_info(di)) == NULL || !is_passkeyd_path(fido_dev_info_path(di)))
		return dev;
	if (fido_dev_set_io_functions(dev, &socket_io) != FIDO_OK)
		fido_dev_free(&dev);
	return dev;
}
