/*
 * What both libfido2 programs share. The socket adapter: passkeyd's Unix socket as a
 * HID device for fido_dev_set_io_functions. libfido2 writes 65 bytes with a
 * leading report ID 0; the socket carries the 64-byte report.
 */
#ifndef PASSKEYD_IO_H
#define PASSKEYD_IO_H

#include <fido.h>

extern const fido_dev_io_t passkeyd_socket_io;

/* Fills p with n random bytes (challenges, user IDs); aborts if the system cannot. */
void passkeyd_fill_random(unsigned char *p, size_t n);

#endif
