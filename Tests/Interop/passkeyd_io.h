/*
 * The socket adapter both libfido2 programs use: passkeyd's Unix socket as a
 * HID device for fido_dev_set_io_functions. libfido2 writes 65 bytes with a
 * leading report ID 0; the socket carries the 64-byte report.
 */
#ifndef PASSKEYD_IO_H
#define PASSKEYD_IO_H

#include <fido.h>

extern const fido_dev_io_t passkeyd_socket_io;

#endif
