/*
 * Finding passkeyd: the `device` option, else the socket passkeyd listens on by
 * default ($PASSKEYD_SOCKET, $XDG_RUNTIME_DIR/passkeyd/ctaphid.sock,
 * /tmp/passkeyd-$UID/ctaphid.sock). The socket adapter refuses a socket whose folder
 * or listener belongs to someone else before any byte is sent, and says so.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "passkeyd-libfido2.h"
#include "provider.h"

static fido_dev_t *
device_open(const struct sk_request *request, int *error)
{
	const char *path = request->device[0] != '\0' ? request->device : passkeyd_default_socket_path();
	fido_dev_t *dev;
	const char *why = NULL;
	struct stat st;
	int r;

	/* No socket at all is the usual case of a daemon not started: say how to start it. */
	if (stat(path, &st) != 0)
		why = strerror(errno);
	else if (!S_ISSOCK(st.st_mode))
		why = "not a socket";
	if (why != NULL) {
		say("no passkeyd socket at %s (%s). Start passkeyd with `passkeyd --detach` "
		    "(or `systemctl --user enable --now passkeyd.socket`), or name its socket with "
		    "-O device=/path/to/ctaphid.sock or $PASSKEYD_SOCKET", path, why);
		*error = SK_ERR_DEVICE_NOT_FOUND;
		return NULL;
	}
	if ((dev = fido_dev_new()) == NULL) {
		*error = SK_ERR_GENERAL;
		return NULL;
	}
	if ((r = fido_dev_set_io_functions(dev, &passkeyd_socket_io)) != FIDO_OK ||
	    (r = fido_dev_open(dev, path)) != FIDO_OK) {
		/* The adapter has printed why: a refused socket, or nobody listening. */
		say("cannot use passkeyd at %s (see the line above)", path);
		fido_dev_free(&dev);
		*error = SK_ERR_DEVICE_NOT_FOUND;
		return NULL;
	}
	if (!fido_dev_is_fido2(dev)) {
		say("passkeyd at %s speaks only U2F (--profile u2f); security keys need CTAP 2", path);
		device_close(&dev);
		*error = SK_ERR_UNSUPPORTED;
		return NULL;
	}
	return dev;
}

fido_dev_t *
device_for_call(struct sk_option **options, const uint32_t *alg, struct sk_request *request, int *error)
{
	fido_init(0);
	if ((*error = request_parse(options, request)) != 0)
		return NULL;
	if (alg != NULL && key_cose_type(*alg) == 0) {
		say("key type %u is not one OpenSSH's sk-api defines (ecdsa-sk 0, ed25519-sk 1)", *alg);
		*error = SK_ERR_UNSUPPORTED;
		return NULL;
	}
	return device_open(request, error);
}

void
device_close(fido_dev_t **dev)
{
	if (*dev == NULL)
		return;
	fido_dev_close(*dev);
	fido_dev_free(dev);
}
