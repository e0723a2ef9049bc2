/*
 * libfido2's CTAP1/U2F path against passkeyd (fido_dev_force_u2f).
 *
 * usage: libfido2_u2f SOCKET
 *
 * Forces U2F on the device, registers a credential (U2F_REGISTER, fido-u2f
 * attestation checked by fido_cred_verify against its x5c certificate), then
 * authenticates with it through the allow list (U2F_AUTHENTICATE) and checks
 * the signature with fido_assert_verify. Exit status 0 only when every check passed.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <fido.h>
#include <fido/es256.h>
#include "passkeyd_io.h"

#define RP_ID "u2f.libfido2.example.org"

#define CHECK(cond, ...)                                                  \
	do {                                                              \
		if (!(cond)) {                                            \
			fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
			fprintf(stderr, __VA_ARGS__);                     \
			fputc('\n', stderr);                              \
			goto out;                                         \
		}                                                         \
	} while (0)

int
main(int argc, char **argv)
{
	fido_dev_t *dev = NULL;
	fido_cred_t *cred = NULL;
	fido_assert_t *a = NULL;
	es256_pk_t *pk = NULL;
	unsigned char cdh[32], user_id[16];
	const char *fmt;
	int r, ok = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: %s SOCKET\n", argv[0]);
		return 2;
	}
	fido_init(getenv("FIDO_DEBUG") ? FIDO_DEBUG : 0);
	passkeyd_fill_random(cdh, sizeof(cdh));
	passkeyd_fill_random(user_id, sizeof(user_id));

	CHECK((dev = fido_dev_new()) != NULL, "fido_dev_new");
	CHECK(fido_dev_set_io_functions(dev, &passkeyd_socket_io) == FIDO_OK, "set_io_functions");
	CHECK((r = fido_dev_open(dev, argv[1])) == FIDO_OK, "open: %s", fido_strerr(r));
	fido_dev_force_u2f(dev);
	CHECK(!fido_dev_is_fido2(dev), "still FIDO2 after fido_dev_force_u2f");

	CHECK((cred = fido_cred_new()) != NULL, "fido_cred_new");
	CHECK(fido_cred_set_type(cred, COSE_ES256) == FIDO_OK, "set_type");
	CHECK(fido_cred_set_clientdata_hash(cred, cdh, sizeof(cdh)) == FIDO_OK, "set_cdh");
	CHECK(fido_cred_set_rp(cred, RP_ID, "libfido2 u2f") == FIDO_OK, "set_rp");
	CHECK(fido_cred_set_user(cred, user_id, sizeof(user_id), "u2f-user", NULL, NULL) == FIDO_OK, "set_user");
	r = fido_dev_make_cred(dev, cred, NULL);
	CHECK(r == FIDO_OK, "make_cred over U2F: %s (%d)", fido_strerr(r), r);
	fmt = fido_cred_fmt(cred);
	CHECK(fmt != NULL && strcmp(fmt, "fido-u2f") == 0, "attestation format %s, want fido-u2f", fmt ? fmt : "(null)");
	CHECK(fido_cred_x5c_len(cred) > 0, "fido-u2f attestation without a certificate");
	r = fido_cred_verify(cred);
	CHECK(r == FIDO_OK, "fido_cred_verify: %s", fido_strerr(r));
	printf("ok make_cred over U2F, key handle %zu bytes, fido_cred_verify passed\n", fido_cred_id_len(cred));

	passkeyd_fill_random(cdh, sizeof(cdh));
	CHECK((a = fido_assert_new()) != NULL, "fido_assert_new");
	CHECK(fido_assert_set_rp(a, RP_ID) == FIDO_OK, "set_rp");
	CHECK(fido_assert_set_clientdata_hash(a, cdh, sizeof(cdh)) == FIDO_OK, "set_cdh");
	CHECK(fido_assert_allow_cred(a, fido_cred_id_ptr(cred), fido_cred_id_len(cred)) == FIDO_OK, "allow_cred");
	r = fido_dev_get_assert(dev, a, NULL);
	CHECK(r == FIDO_OK, "get_assert over U2F: %s (%d)", fido_strerr(r), r);
	CHECK(fido_assert_count(a) == 1, "%zu assertions, want 1", fido_assert_count(a));
	CHECK(fido_assert_flags(a, 0) & 0x01, "UP flag clear");
	CHECK((pk = es256_pk_new()) != NULL, "es256_pk_new");
	CHECK(es256_pk_from_ptr(pk, fido_cred_pubkey_ptr(cred), fido_cred_pubkey_len(cred)) == FIDO_OK, "es256_pk_from_ptr");
	r = fido_assert_verify(a, 0, COSE_ES256, pk);
	CHECK(r == FIDO_OK, "fido_assert_verify: %s", fido_strerr(r));
	printf("ok get_assert over U2F, counter %u, fido_assert_verify passed\n", fido_assert_sigcount(a, 0));
	printf("libfido2 U2F interop: every check passed\n");
	ok = 1;
out:
	es256_pk_free(&pk);
	fido_assert_free(&a);
	fido_cred_free(&cred);
	if (dev != NULL) {
		fido_dev_close(dev);
		fido_dev_free(&dev);
	}
	return ok ? 0 : 1;
}
