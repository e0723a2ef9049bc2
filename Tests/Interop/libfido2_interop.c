/*
 * libfido2 against passkeyd, through fido_dev_set_io_functions.
 *
 * usage: libfido2_interop SOCKET [--uv]
 *
 * Registers one resident ES256 and one resident EdDSA credential for one RP,
 * then asks for an assertion with no allow list (libfido2 walks
 * authenticatorGetNextAssertion), and verifies everything with libfido2's own
 * code: fido_cred_verify_self for the packed self-attestations, and
 * fido_assert_verify against each credential's public key.
 * --uv asks for user verification (for a daemon with built-in UV configured).
 * Exit status 0 only when every check passed.
 */
#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <fido.h>
#include "fill_random.h"
#include <passkeyd-libfido2.h>
#include <fido/eddsa.h>
#include <fido/es256.h>

#define RP_ID "libfido2.example.org"


static int failures;

#define CHECK(cond, ...)                                                  \
	do {                                                              \
		if (!(cond)) {                                            \
			fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
			fprintf(stderr, __VA_ARGS__);                     \
			fputc('\n', stderr);                              \
			failures++;                                       \
			goto out;                                         \
		}                                                         \
	} while (0)

struct registered {
	int alg;
	unsigned char id[1024];
	size_t id_len;
	unsigned char user_id[16];
	unsigned char pk[64];
	size_t pk_len;
};

static fido_dev_t *
open_dev(const char *path)
{
	fido_dev_t *dev = fido_dev_new();
	int r;

	if (dev == NULL)
		return NULL;
	if ((r = fido_dev_set_io_functions(dev, &passkeyd_socket_io)) != FIDO_OK ||
	    (r = fido_dev_open(dev, path)) != FIDO_OK) {
		fprintf(stderr, "FAIL open %s: %s\n", path, fido_strerr(r));
		fido_dev_free(&dev);
		return NULL;
	}
	return dev;
}

static int
make_cred(const char *path, int alg, bool uv, struct registered *out)
{
	fido_dev_t *dev = NULL;
	fido_cred_t *cred = NULL;
	unsigned char cdh[32];
	const char *fmt;
	int r, ok = 0;

	passkeyd_fill_random(cdh, sizeof(cdh));
	passkeyd_fill_random(out->user_id, sizeof(out->user_id));
	out->alg = alg;
	CHECK((dev = open_dev(path)) != NULL, "open");
	CHECK(fido_dev_is_fido2(dev), "device does not report CTAPHID_CBOR capability");
	CHECK((cred = fido_cred_new()) != NULL, "fido_cred_new");
	CHECK(fido_cred_set_type(cred, alg) == FIDO_OK, "set_type");
	CHECK(fido_cred_set_clientdata_hash(cred, cdh, sizeof(cdh)) == FIDO_OK, "set_cdh");
	CHECK(fido_cred_set_rp(cred, RP_ID, "libfido2 interop") == FIDO_OK, "set_rp");
	CHECK(fido_cred_set_user(cred, out->user_id, sizeof(out->user_id),
	    alg == COSE_ES256 ? "es256-user" : "eddsa-user", "libfido2 user", NULL) == FIDO_OK, "set_user");
	CHECK(fido_cred_set_rk(cred, FIDO_OPT_TRUE) == FIDO_OK, "set_rk");
	if (uv)
		CHECK(fido_cred_set_uv(cred, FIDO_OPT_TRUE) == FIDO_OK, "set_uv");
	r = fido_dev_make_cred(dev, cred, NULL);
	CHECK(r == FIDO_OK, "make_cred alg %d: %s (%d)", alg, fido_strerr(r), r);

	fmt = fido_cred_fmt(cred);
	CHECK(fmt != NULL && strcmp(fmt, "packed") == 0, "attestation format %s, want packed", fmt ? fmt : "(null)");
	CHECK(fido_cred_x5c_len(cred) == 0, "attestation carries x5c; want self attestation");
	r = fido_cred_verify_self(cred);
	CHECK(r == FIDO_OK, "fido_cred_verify_self alg %d: %s", alg, fido_strerr(r));
	CHECK(fido_cred_flags(cred) & 0x01, "UP flag clear");
	if (uv)
		CHECK(fido_cred_flags(cred) & 0x04, "UV flag clear though UV was asked");

	out->id_len = fido_cred_id_len(cred);
	CHECK(out->id_len > 0 && out->id_len <= sizeof(out->id), "credential id length %zu", out->id_len);
	memcpy(out->id, fido_cred_id_ptr(cred), out->id_len);
	out->pk_len = fido_cred_pubkey_len(cred);
	CHECK(out->pk_len > 0 && out->pk_len <= sizeof(out->pk), "public key length %zu", out->pk_len);
	memcpy(out->pk, fido_cred_pubkey_ptr(cred), out->pk_len);
	printf("ok make_cred alg %d, credential id %zu bytes, verify_self passed\n", alg, out->id_len);
	ok = 1;
out:
	fido_cred_free(&cred);
	if (dev != NULL) {
		fido_dev_close(dev);
		fido_dev_free(&dev);
	}
	return ok;
}

static int
verify_one(const fido_assert_t *a, size_t idx, const struct registered *c)
{
	int r = FIDO_ERR_INTERNAL;

	if (c->alg == COSE_ES256) {
		es256_pk_t *pk = es256_pk_new();
		if (pk != NULL && es256_pk_from_ptr(pk, c->pk, c->pk_len) == FIDO_OK)
			r = fido_assert_verify(a, idx, COSE_ES256, pk);
		es256_pk_free(&pk);
	} else {
		eddsa_pk_t *pk = eddsa_pk_new();
		if (pk != NULL && eddsa_pk_from_ptr(pk, c->pk, c->pk_len) == FIDO_OK)
			r = fido_assert_verify(a, idx, COSE_EDDSA, pk);
		eddsa_pk_free(&pk);
	}
	return r;
}

static int
get_assert_discoverable(const char *path, bool uv, const struct registered *creds, size_t n)
{
	fido_dev_t *dev = NULL;
	fido_assert_t *a = NULL;
	unsigned char cdh[32];
	bool seen[8] = { false };
	int r, ok = 0;

	passkeyd_fill_random(cdh, sizeof(cdh));
	CHECK((dev = open_dev(path)) != NULL, "open");
	CHECK((a = fido_assert_new()) != NULL, "fido_assert_new");
	CHECK(fido_assert_set_rp(a, RP_ID) == FIDO_OK, "set_rp");
	CHECK(fido_assert_set_clientdata_hash(a, cdh, sizeof(cdh)) == FIDO_OK, "set_cdh");
	if (uv)
		CHECK(fido_assert_set_uv(a, FIDO_OPT_TRUE) == FIDO_OK, "set_uv");
	r = fido_dev_get_assert(dev, a, NULL);
	CHECK(r == FIDO_OK, "get_assert: %s (%d)", fido_strerr(r), r);
	CHECK(fido_assert_count(a) == n, "%zu assertions, want %zu", fido_assert_count(a), n);

	for (size_t i = 0; i < fido_assert_count(a); i++) {
		size_t match = n;
		for (size_t j = 0; j < n; j++)
			if (fido_assert_id_len(a, i) == creds[j].id_len &&
			    memcmp(fido_assert_id_ptr(a, i), creds[j].id, creds[j].id_len) == 0)
				match = j;
		CHECK(match < n, "assertion %zu names an unknown credential", i);
		CHECK(!seen[match], "credential %zu asserted twice", match);
		seen[match] = true;
		CHECK(fido_assert_user_id_len(a, i) == sizeof(creds[match].user_id) &&
		    memcmp(fido_assert_user_id_ptr(a, i), creds[match].user_id, sizeof(creds[match].user_id)) == 0,
		    "assertion %zu carries the wrong user handle", i);
		r = verify_one(a, i, &creds[match]);
		CHECK(r == FIDO_OK, "fido_assert_verify assertion %zu alg %d: %s", i, creds[match].alg, fido_strerr(r));
		CHECK(fido_assert_flags(a, i) & 0x01, "UP flag clear");
		printf("ok get_assert %zu of %zu, alg %d, fido_assert_verify passed\n", i + 1, n, creds[match].alg);
	}
	ok = 1;
out:
	fido_assert_free(&a);
	if (dev != NULL) {
		fido_dev_close(dev);
		fido_dev_free(&dev);
	}
	return ok;
}

int
main(int argc, char **argv)
{
	struct registered creds[2];
	const int algs[2] = { COSE_ES256, COSE_EDDSA };
	bool uv = false;

	if (argc < 2 || argc > 3 || (argc == 3 && strcmp(argv[2], "--uv") != 0)) {
		fprintf(stderr, "usage: %s SOCKET [--uv]\n", argv[0]);
		return 2;
	}
	uv = argc == 3;
	fido_init(getenv("FIDO_DEBUG") ? FIDO_DEBUG : 0);

	for (size_t i = 0; i < 2; i++)
		if (!make_cred(argv[1], algs[i], uv, &creds[i]))
			return 1;
	if (!get_assert_discoverable(argv[1], uv, creds, 2))
		return 1;
	printf("libfido2 interop: every check passed\n");
	return failures == 0 ? 0 : 1;
}
