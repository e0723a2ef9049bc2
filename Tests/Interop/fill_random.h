/* What both libfido2 test programs share besides the socket adapter (passkeyd-libfido2). */
#ifndef FILL_RANDOM_H
#define FILL_RANDOM_H

#include <stdio.h>
#include <stdlib.h>

/* Fills p with n random bytes (challenges, user IDs); aborts if the system cannot. */
static inline void
passkeyd_fill_random(unsigned char *p, size_t n)
{
	FILE *f = fopen("/dev/urandom", "rb");

	if (f == NULL || fread(p, 1, n, f) != n)
		abort();
	fclose(f);
}

#endif
