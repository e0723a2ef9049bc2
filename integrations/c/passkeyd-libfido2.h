/*
 * passkeyd-libfido2: libfido2 on passkeyd's Unix socket.
 *
 * passkeyd is a virtual FIDO2 HID device whose reports travel on a Unix stream socket,
 * 64 bytes each, no report ID. These io functions let libfido2 (fido_dev_set_io_functions)
 * open that socket as if it were a hidraw device:
 *
 *	fido_dev_t *dev = fido_dev_new();
 *	fido_dev_set_io_functions(dev, &passkeyd_socket_io);
 *	fido_dev_open(dev, passkeyd_default_socket_path());
 *
 * Before a byte is sent the socket is checked as passkeyd's own clients check it: its
 * folder is a real directory of ours that nobody else can write, and the process serving it
 * runs as our uid (SO_PEERCRED). A daemon that hangs up costs the call FIDO_ERR_TX or
 * FIDO_ERR_RX, never the program's life: reports are sent with MSG_NOSIGNAL (no SIGPIPE), and a
 * read waits at most 15 s. Build with `pkg-config --cflags --libs passkeyd-libfido2`.
 */
#ifndef PASSKEYD_LIBFIDO2_H
#define PASSKEYD_LIBFIDO2_H

#include <fido.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The io functions: open takes the socket's path, as fido_dev_open passes it. */
extern const fido_dev_io_t passkeyd_socket_io;

/*
 * passkeyd's default socket: $PASSKEYD_SOCKET, else $XDG_RUNTIME_DIR/passkeyd/ctaphid.sock,
 * else /tmp/passkeyd-$UID/ctaphid.sock. The text lives in a static buffer (not thread-safe).
 */
const char *passkeyd_default_socket_path(void);

#ifdef __cplusplus
}
#endif

#endif
