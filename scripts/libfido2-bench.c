/*
 * `make bench`'s libfido2 client (scripts/bench.sh builds it, passkeybench runs it):
 * resident ES256 registrations, each at an RP of its own, then discoverable sign-ins at one
 * RP, all on one connection through libfido2 and the shipped socket adapter
 * (integrations/c). libfido2 blocks in read(2) on the calling thread: no event loop of its
 * own, as the first figures were taken.
 *
 *   libfido2-bench SOCKET OPERATIONS SECONDS
 *
 * Prints one JSON object: {"makeCredential": FIGURE, "getAssertion": FIGURE}, each FIGURE
 * {"operations": N, "seconds": S, "latencies": [ms, ...]}. Errors go to stderr, exit 1.
 */
#include <fido.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "passkeyd-libfido2.h"

#define WARMUP 5

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static const unsigned char cdh[32] = { 0x5a };

static int make_cred(fido_dev_t *dev, const char *rp, unsigned long user)
{
	unsigned char id[16] = { 0 };
	fido_cred_t *cred = fido_cred_new();
	int r;

	memcpy(id, &user, sizeof(user));
	if (cred == NULL)
		return FIDO_ERR_INTERNAL;
	fido_cred_set_type(cred, COSE_ES256);
	fido_cred_set_clientdata_hash(cred, cdh, sizeof(cdh));
	fido_cred_set_rp(cred, rp, "passkeybench");
	fido_cred_set_user(cred, id, sizeof(id), "bench", "bench", NULL);
	fido_cred_set_rk(cred, FIDO_OPT_TRUE);
	r = fido_dev_make_cred(dev, cred, NULL);
	fido_cred_free(&cred);
	return r;
}

static int get_assert(fido_dev_t *dev, unsigned long unused)
{
	fido_assert_t *assert = fido_assert_new();
	int r;

	(void)unused;
	if (assert == NULL)
		return FIDO_ERR_INTERNAL;
	fido_assert_set_clientdata_hash(assert, cdh, sizeof(cdh));
	fido_assert_set_rp(assert, "sign-in.passkeybench.example");
	r = fido_dev_get_assert(dev, assert, NULL);
	fido_assert_free(&assert);
	return r;
}

static int register_one(fido_dev_t *dev, unsigned long user)
{
	char rp[64];

	snprintf(rp, sizeof(rp), "r%lu.passkeybench.example", user);
	return make_cred(dev, rp, user);
}

/* Runs `op` until `limit` operations or `seconds` pass; prints the figure as JSON. */
static int figure(const char *name, fido_dev_t *dev, int (*op)(fido_dev_t *, unsigned long),
    unsigned long *user, int limit, double seconds)
{
	double *latencies = calloc((size_t)limit, sizeof(double));
	double start, end, t;
	int i, n = 0, r;

	if (latencies == NULL)
		return 0;
	for (i = 0; i < WARMUP; i++)
		if ((r = op(dev, (*user)++)) != FIDO_OK) {
			fprintf(stderr, "%s: %s\n", name, fido_strerr(r));
			free(latencies);
			return 0;
		}
	start = now();
	while (n < limit && now() - start < seconds) {
		t = now();
		if ((r = op(dev, (*user)++)) != FIDO_OK) {
			fprintf(stderr, "%s: %s\n", name, fido_strerr(r));
			free(latencies);
			return 0;
		}
		latencies[n++] = (now() - t) * 1e3;
	}
	end = now();
	printf("\"%s\": {\"operations\": %d, \"seconds\": %.6f, \"latencies\": [", name, n, end - start);
	for (i = 0; i < n; i++)
		printf("%s%.4f", i ? "," : "", latencies[i]);
	printf("]}");
	free(latencies);
	return 1;
}

int main(int argc, char **argv)
{
	fido_dev_t *dev;
	unsigned long user = 1;
	int operations, r;
	double seconds;

	if (argc != 4 || (operations = atoi(argv[2])) <= 0 || (seconds = atof(argv[3])) <= 0) {
		fprintf(stderr, "usage: libfido2-bench SOCKET OPERATIONS SECONDS\n");
		return 1;
	}
	fido_init(0);
	if ((dev = fido_dev_new()) == NULL ||
	    (r = fido_dev_set_io_functions(dev, &passkeyd_socket_io)) != FIDO_OK ||
	    (r = fido_dev_open(dev, argv[1])) != FIDO_OK) {
		fprintf(stderr, "cannot open %s through libfido2\n", argv[1]);
		return 1;
	}
	if ((r = make_cred(dev, "sign-in.passkeybench.example", 0)) != FIDO_OK) {
		fprintf(stderr, "sign-in credential: %s\n", fido_strerr(r));
		return 1;
	}
	printf("{");
	if (!figure("makeCredential", dev, register_one, &user, operations, seconds))
		return 1;
	printf(", ");
	if (!figure("getAssertion", dev, get_assert, &user, operations, seconds))
		return 1;
	printf("}\n");
	fido_dev_close(dev);
	fido_dev_free(&dev);
	return 0;
}
