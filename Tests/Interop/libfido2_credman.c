/*
 * libfido2's PIN and credential management against passkeyd, through
 * fido_dev_set_io_functions (the same socket adapter as libfido2_interop.c).
 *
 * usage: libfido2_credman SOCKET COMMAND [ARGS...]
 *   setpin                           fido_dev_set_pin with no old PIN
 *   changepin NEWPIN_ENV             fido_dev_set_pin from $LIBFIDO2_PIN to $NEWPIN_ENV
 *   retries                          fido_dev_get_retry_count
 *   register RP_ID USER DISPLAY ALG  resident credential, PIN-verified; ALG es256|eddsa
 *   list                             metadata, RPs and every RP's credentials
 *   delete CRED_ID_HEX               fido_credman_del_dev_rk
 *   rename CRED_ID_HEX USER_ID_HEX USER DISPLAY   fido_credman_set_dev_rk
 *   largeblob-set KEY_HEX DATA_HEX   fido_dev_largeblob_set (PIN-authorised write)
 *   largeblob-get KEY_HEX            fido_dev_largeblob_get ({"blob": null} when absent)
 *   credblob RP_ID BLOB_HEX          resident credential with credBlob and largeBlobKey,
 *                                    then an assertion asking for both
 *   minpinlen N [RP_ID]              fido_dev_set_pin_minlen (and _rpid), then getInfo
 *   forcepinchange                   fido_dev_force_pin_change, then getInfo
 *   alwaysuv                         fido_dev_toggle_always_uv, then getInfo
 *   bio-info                         fido_bio_dev_get_info
 *   bio-enroll                       fido_bio_dev_enroll_begin, then _continue until no
 *                                    samples remain (each sample's status listed)
 *   bio-list                         fido_bio_dev_get_template_array
 *   bio-rename TEMPLATE_HEX NAME     fido_bio_dev_set_template_name
 *   bio-remove TEMPLATE_HEX          fido_bio_dev_enroll_remove
 *
 * The PIN comes from $LIBFIDO2_PIN (never argv, which other users can read).
 * Every command prints one JSON object on stdout; byte strings are lowercase hex.
 * On a libfido2 error it prints {"error": "...", "code": N, "message": "..."} on
 * stderr and exits 1.
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
#include <fido/bio.h>
#include <fido/config.h>
#include <fido/credman.h>



/* -- output ------------------------------------------------------------- */

static void
json_string(const char *s)
{
	if (s == NULL) {
		fputs("null", stdout);
		return;
	}
	putchar('"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c < 0x20)
			printf("\\u%04x", c);
		else
			putchar(c);
	}
	putchar('"');
}

static void
json_hex(const unsigned char *p, size_t n)
{
	putchar('"');
	for (size_t i = 0; i < n; i++)
		printf("%02x", p[i]);
	putchar('"');
}

static int
fail(const char *what, int r)
{
	fflush(stdout);
	fprintf(stderr, "{\"error\": \"%s\", \"code\": %d, \"message\": \"%s\"}\n", what, r, fido_strerr(r));
	return 1;
}

static int
unhex(const char *s, unsigned char *out, size_t cap, size_t *len)
{
	size_t n = strlen(s);

	if (n % 2 != 0 || n / 2 > cap)
		return -1;
	for (size_t i = 0; i < n / 2; i++) {
		unsigned int b;
		if (sscanf(s + 2 * i, "%2x", &b) != 1)
			return -1;
		out[i] = (unsigned char)b;
	}
	*len = n / 2;
	return 0;
}

/* -- commands ----------------------------------------------------------- */

static int
cmd_setpin(fido_dev_t *dev, const char *pin, const char *old)
{
	int r, retries = -1;

	if ((r = fido_dev_set_pin(dev, pin, old)) != FIDO_OK)
		return fail("fido_dev_set_pin", r);
	if ((r = fido_dev_get_retry_count(dev, &retries)) != FIDO_OK)
		return fail("fido_dev_get_retry_count", r);
	printf("{\"retries\": %d}\n", retries);
	return 0;
}

static int
cmd_retries(fido_dev_t *dev)
{
	int r, retries = -1;

	if ((r = fido_dev_get_retry_count(dev, &retries)) != FIDO_OK)
		return fail("fido_dev_get_retry_count", r);
	printf("{\"retries\": %d}\n", retries);
	return 0;
}

static int
cmd_register(fido_dev_t *dev, const char *pin, char **argv)
{
	const char *rp_id = argv[0], *user = argv[1], *display = argv[2];
	int alg = strcmp(argv[3], "eddsa") == 0 ? COSE_EDDSA : COSE_ES256;
	unsigned char cdh[32], user_id[16];
	fido_cred_t *cred = fido_cred_new();
	int r, rc = 1;

	passkeyd_fill_random(cdh, sizeof(cdh));
	passkeyd_fill_random(user_id, sizeof(user_id));
	if (cred == NULL)
		return fail("fido_cred_new", FIDO_ERR_INTERNAL);
	if ((r = fido_cred_set_type(cred, alg)) != FIDO_OK ||
	    (r = fido_cred_set_clientdata_hash(cred, cdh, sizeof(cdh))) != FIDO_OK ||
	    (r = fido_cred_set_rp(cred, rp_id, rp_id)) != FIDO_OK ||
	    (r = fido_cred_set_user(cred, user_id, sizeof(user_id), user, display, NULL)) != FIDO_OK ||
	    (r = fido_cred_set_rk(cred, FIDO_OPT_TRUE)) != FIDO_OK) {
		rc = fail("fido_cred_set_*", r);
		goto out;
	}
	/* With a PIN, libfido2 gets a pinUvAuthToken (mc, this RP) and sends pinUvAuthParam. */
	if ((r = fido_dev_make_cred(dev, cred, pin)) != FIDO_OK) {
		rc = fail("fido_dev_make_cred", r);
		goto out;
	}
	if ((r = fido_cred_verify_self(cred)) != FIDO_OK) {
		rc = fail("fido_cred_verify_self", r);
		goto out;
	}
	printf("{\"credentialId\": ");
	json_hex(fido_cred_id_ptr(cred), fido_cred_id_len(cred));
	printf(", \"userId\": ");
	json_hex(user_id, sizeof(user_id));
	printf(", \"flags\": %u}\n", (unsigned)fido_cred_flags(cred));
	rc = 0;
out:
	fido_cred_free(&cred);
	return rc;
}

static int
print_rks(fido_dev_t *dev, const char *pin, const char *rp_id)
{
	fido_credman_rk_t *rk = fido_credman_rk_new();
	int r;

	if (rk == NULL)
		return fail("fido_credman_rk_new", FIDO_ERR_INTERNAL);
	if ((r = fido_credman_get_dev_rk(dev, rp_id, rk, pin)) != FIDO_OK) {
		fido_credman_rk_free(&rk);
		return fail("fido_credman_get_dev_rk", r);
	}
	printf("[");
	for (size_t i = 0; i < fido_credman_rk_count(rk); i++) {
		const fido_cred_t *c = fido_credman_rk(rk, i);
		printf("%s{\"credentialId\": ", i ? ", " : "");
		json_hex(fido_cred_id_ptr(c), fido_cred_id_len(c));
		printf(", \"userId\": ");
		json_hex(fido_cred_user_id_ptr(c), fido_cred_user_id_len(c));
		printf(", \"userName\": ");
		json_string(fido_cred_user_name(c));
		printf(", \"displayName\": ");
		json_string(fido_cred_display_name(c));
		printf(", \"alg\": %d, \"credProtect\": %d}", fido_cred_type(c), fido_cred_prot(c));
	}
	printf("]");
	fido_credman_rk_free(&rk);
	return 0;
}

static int
cmd_list(fido_dev_t *dev, const char *pin)
{
	fido_credman_metadata_t *md = fido_credman_metadata_new();
	fido_credman_rp_t *rp = fido_credman_rp_new();
	int r, rc = 1;

	if (md == NULL || rp == NULL) {
		rc = fail("fido_credman_*_new", FIDO_ERR_INTERNAL);
		goto out;
	}
	if ((r = fido_credman_get_dev_metadata(dev, md, pin)) != FIDO_OK) {
		rc = fail("fido_credman_get_dev_metadata", r);
		goto out;
	}
	/* §6.8.3: with no discoverable credential, enumerateRPsBegin answers NO_CREDENTIALS: an empty list. */
	if ((r = fido_credman_get_dev_rp(dev, rp, pin)) != FIDO_OK && r != FIDO_ERR_NO_CREDENTIALS) {
		rc = fail("fido_credman_get_dev_rp", r);
		goto out;
	}
	printf("{\"existing\": %llu, \"remaining\": %llu, \"relyingParties\": [",
	    (unsigned long long)fido_credman_rk_existing(md),
	    (unsigned long long)fido_credman_rk_remaining(md));
	for (size_t i = 0; i < fido_credman_rp_count(rp); i++) {
		printf("%s{\"id\": ", i ? ", " : "");
		json_string(fido_credman_rp_id(rp, i));
		printf(", \"name\": ");
		json_string(fido_credman_rp_name(rp, i));
		printf(", \"rpIdHash\": ");
		json_hex(fido_credman_rp_id_hash_ptr(rp, i), fido_credman_rp_id_hash_len(rp, i));
		printf(", \"credentials\": ");
		if (print_rks(dev, pin, fido_credman_rp_id(rp, i)) != 0)
			goto out; /* print_rks reported the error; exit status 1 */
		printf("}");
	}
	printf("]}\n");
	rc = 0;
out:
	fido_credman_metadata_free(&md);
	fido_credman_rp_free(&rp);
	return rc;
}

static int
cmd_delete(fido_dev_t *dev, const char *pin, const char *id_hex)
{
	unsigned char id[1024];
	size_t n;
	int r;

	if (unhex(id_hex, id, sizeof(id), &n) != 0)
		return fail("credential id is not hex", FIDO_ERR_INVALID_ARGUMENT);
	if ((r = fido_credman_del_dev_rk(dev, id, n, pin)) != FIDO_OK)
		return fail("fido_credman_del_dev_rk", r);
	printf("{\"deleted\": ");
	json_hex(id, n);
	printf("}\n");
	return 0;
}

static int
cmd_rename(fido_dev_t *dev, const char *pin, char **argv)
{
	unsigned char id[1024], user_id[128];
	size_t id_len, user_id_len;
	fido_cred_t *cred = fido_cred_new();
	int r, rc = 1;

	if (cred == NULL)
		return fail("fido_cred_new", FIDO_ERR_INTERNAL);
	if (unhex(argv[0], id, sizeof(id), &id_len) != 0 || unhex(argv[1], user_id, sizeof(user_id), &user_id_len) != 0) {
		rc = fail("credential or user id is not hex", FIDO_ERR_INVALID_ARGUMENT);
		goto out;
	}
	if ((r = fido_cred_set_id(cred, id, id_len)) != FIDO_OK ||
	    (r = fido_cred_set_user(cred, user_id, user_id_len, argv[2], argv[3], NULL)) != FIDO_OK) {
		rc = fail("fido_cred_set_*", r);
		goto out;
	}
	if ((r = fido_credman_set_dev_rk(dev, cred, pin)) != FIDO_OK) {
		rc = fail("fido_credman_set_dev_rk", r);
		goto out;
	}
	printf("{\"renamed\": ");
	json_hex(id, id_len);
	printf("}\n");
	rc = 0;
out:
	fido_cred_free(&cred);
	return rc;
}

static int
cmd_largeblob_set(fido_dev_t *dev, const char *pin, const char *key_hex, const char *data_hex)
{
	unsigned char key[32], data[2048];
	size_t key_len, data_len;
	int r;

	if (unhex(key_hex, key, sizeof(key), &key_len) != 0 || unhex(data_hex, data, sizeof(data), &data_len) != 0)
		return fail("key or data is not hex", FIDO_ERR_INVALID_ARGUMENT);
	if ((r = fido_dev_largeblob_set(dev, key, key_len, data, data_len, pin)) != FIDO_OK)
		return fail("fido_dev_largeblob_set", r);
	printf("{\"set\": true}\n");
	return 0;
}

static int
cmd_largeblob_get(fido_dev_t *dev, const char *key_hex)
{
	unsigned char key[32], *blob = NULL;
	size_t key_len, blob_len = 0;
	int r;

	if (unhex(key_hex, key, sizeof(key), &key_len) != 0)
		return fail("key is not hex", FIDO_ERR_INVALID_ARGUMENT);
	r = fido_dev_largeblob_get(dev, key, key_len, &blob, &blob_len);
	if (r == FIDO_ERR_NOTFOUND) {
		printf("{\"blob\": null}\n");
		return 0;
	}
	if (r != FIDO_OK)
		return fail("fido_dev_largeblob_get", r);
	printf("{\"blob\": ");
	json_hex(blob, blob_len);
	printf("}\n");
	free(blob);
	return 0;
}

static int
cmd_credblob(fido_dev_t *dev, const char *pin, const char *rp_id, const char *blob_hex)
{
	unsigned char cdh[32], user_id[16], blob[64];
	size_t blob_len;
	fido_cred_t *cred = fido_cred_new();
	fido_assert_t *assert = fido_assert_new();
	int r, rc = 1;

	passkeyd_fill_random(cdh, sizeof(cdh));
	passkeyd_fill_random(user_id, sizeof(user_id));
	if (cred == NULL || assert == NULL) {
		rc = fail("fido_*_new", FIDO_ERR_INTERNAL);
		goto out;
	}
	if (unhex(blob_hex, blob, sizeof(blob), &blob_len) != 0) {
		rc = fail("blob is not hex", FIDO_ERR_INVALID_ARGUMENT);
		goto out;
	}
	if ((r = fido_cred_set_type(cred, COSE_ES256)) != FIDO_OK ||
	    (r = fido_cred_set_clientdata_hash(cred, cdh, sizeof(cdh))) != FIDO_OK ||
	    (r = fido_cred_set_rp(cred, rp_id, rp_id)) != FIDO_OK ||
	    (r = fido_cred_set_user(cred, user_id, sizeof(user_id), "blob", "Blob", NULL)) != FIDO_OK ||
	    (r = fido_cred_set_rk(cred, FIDO_OPT_TRUE)) != FIDO_OK ||
	    (r = fido_cred_set_extensions(cred, FIDO_EXT_LARGEBLOB_KEY)) != FIDO_OK ||
	    (r = fido_cred_set_blob(cred, blob, blob_len)) != FIDO_OK) {
		rc = fail("fido_cred_set_*", r);
		goto out;
	}
	if ((r = fido_dev_make_cred(dev, cred, pin)) != FIDO_OK) {
		rc = fail("fido_dev_make_cred", r);
		goto out;
	}
	if ((r = fido_assert_set_clientdata_hash(assert, cdh, sizeof(cdh))) != FIDO_OK ||
	    (r = fido_assert_set_rp(assert, rp_id)) != FIDO_OK ||
	    (r = fido_assert_allow_cred(assert, fido_cred_id_ptr(cred), fido_cred_id_len(cred))) != FIDO_OK ||
	    (r = fido_assert_set_extensions(assert, FIDO_EXT_CRED_BLOB | FIDO_EXT_LARGEBLOB_KEY)) != FIDO_OK) {
		rc = fail("fido_assert_set_*", r);
		goto out;
	}
	if ((r = fido_dev_get_assert(dev, assert, pin)) != FIDO_OK) {
		rc = fail("fido_dev_get_assert", r);
		goto out;
	}
	printf("{\"credentialId\": ");
	json_hex(fido_cred_id_ptr(cred), fido_cred_id_len(cred));
	printf(", \"largeBlobKey\": ");
	json_hex(fido_cred_largeblob_key_ptr(cred), fido_cred_largeblob_key_len(cred));
	printf(", \"assertionLargeBlobKey\": ");
	json_hex(fido_assert_largeblob_key_ptr(assert, 0), fido_assert_largeblob_key_len(assert, 0));
	printf(", \"blob\": ");
	json_hex(fido_assert_blob_ptr(assert, 0), fido_assert_blob_len(assert, 0));
	printf("}\n");
	rc = 0;
out:
	fido_cred_free(&cred);
	fido_assert_free(&assert);
	return rc;
}

/* What getInfo says after a config change: minPINLength, forcePINChange and alwaysUv. */
static int
print_config(fido_dev_t *dev)
{
	fido_cbor_info_t *ci = fido_cbor_info_new();
	char **names;
	const bool *values;
	int r, always_uv = -1;

	if (ci == NULL)
		return fail("fido_cbor_info_new", FIDO_ERR_INTERNAL);
	if ((r = fido_dev_get_cbor_info(dev, ci)) != FIDO_OK) {
		fido_cbor_info_free(&ci);
		return fail("fido_dev_get_cbor_info", r);
	}
	names = fido_cbor_info_options_name_ptr(ci);
	values = fido_cbor_info_options_value_ptr(ci);
	for (size_t i = 0; i < fido_cbor_info_options_len(ci); i++)
		if (strcmp(names[i], "alwaysUv") == 0)
			always_uv = values[i];
	printf("{\"minPinLength\": %llu, \"forcePinChange\": %s, \"alwaysUv\": %s, \"maxLargeBlob\": %llu}\n",
	    (unsigned long long)fido_cbor_info_minpinlen(ci), fido_cbor_info_new_pin_required(ci) ? "true" : "false",
	    always_uv < 0 ? "null" : always_uv ? "true" : "false", (unsigned long long)fido_cbor_info_maxlargeblob(ci));
	fido_cbor_info_free(&ci);
	return 0;
}

static int
cmd_minpinlen(fido_dev_t *dev, const char *pin, const char *length, const char *rp_id)
{
	int r;

	/* The RP IDs first: a longer minimum may force a PIN change, after which the PIN buys no token. */
	if (rp_id != NULL && (r = fido_dev_set_pin_minlen_rpid(dev, &rp_id, 1, pin)) != FIDO_OK)
		return fail("fido_dev_set_pin_minlen_rpid", r);
	if ((r = fido_dev_set_pin_minlen(dev, (size_t)strtoul(length, NULL, 10), pin)) != FIDO_OK)
		return fail("fido_dev_set_pin_minlen", r);
	return print_config(dev);
}

static int
cmd_config(fido_dev_t *dev, const char *pin, int (*change)(fido_dev_t *, const char *), const char *what)
{
	int r;

	if ((r = change(dev, pin)) != FIDO_OK)
		return fail(what, r);
	return print_config(dev);
}

/* -- bio enrollment (CTAP 2.1 §6.7) -------------------------------------- */

static int
cmd_bio_info(fido_dev_t *dev)
{
	fido_bio_info_t *info = fido_bio_info_new();
	int r;

	if (info == NULL)
		return fail("fido_bio_info_new", FIDO_ERR_INTERNAL);
	if ((r = fido_bio_dev_get_info(dev, info)) != FIDO_OK) {
		fido_bio_info_free(&info);
		return fail("fido_bio_dev_get_info", r);
	}
	printf("{\"type\": %u, \"maxSamples\": %u}\n", fido_bio_info_type(info), fido_bio_info_max_samples(info));
	fido_bio_info_free(&info);
	return 0;
}

static int
cmd_bio_enroll(fido_dev_t *dev, const char *pin)
{
	fido_bio_template_t *t = fido_bio_template_new();
	fido_bio_enroll_t *e = fido_bio_enroll_new();
	int r, rc = 1, samples = 0;

	if (t == NULL || e == NULL) {
		rc = fail("fido_bio_enroll_new", FIDO_ERR_INTERNAL);
		goto out;
	}
	if ((r = fido_bio_dev_enroll_begin(dev, t, e, 10000, pin)) != FIDO_OK) {
		rc = fail("fido_bio_dev_enroll_begin", r);
		goto out;
	}
	printf("{\"statuses\": [%u", fido_bio_enroll_last_status(e));
	for (samples = 1; fido_bio_enroll_remaining_samples(e) > 0 && samples < 32; samples++) {
		if ((r = fido_bio_dev_enroll_continue(dev, t, e, 10000)) != FIDO_OK) {
			printf("]}\n");
			rc = fail("fido_bio_dev_enroll_continue", r);
			goto out;
		}
		printf(", %u", fido_bio_enroll_last_status(e));
	}
	printf("], \"templateId\": ");
	json_hex(fido_bio_template_id_ptr(t), fido_bio_template_id_len(t));
	printf("}\n");
	rc = 0;
out:
	fido_bio_enroll_free(&e);
	fido_bio_template_free(&t);
	return rc;
}

static int
cmd_bio_list(fido_dev_t *dev, const char *pin)
{
	fido_bio_template_array_t *ta = fido_bio_template_array_new();
	int r;

	if (ta == NULL)
		return fail("fido_bio_template_array_new", FIDO_ERR_INTERNAL);
	if ((r = fido_bio_dev_get_template_array(dev, ta, pin)) != FIDO_OK) {
		fido_bio_template_array_free(&ta);
		return fail("fido_bio_dev_get_template_array", r);
	}
	printf("{\"templates\": {");
	for (size_t i = 0; i < fido_bio_template_array_count(ta); i++) {
		const fido_bio_template_t *t = fido_bio_template(ta, i);
		const char *name = fido_bio_template_name(t);
		printf("%s", i ? ", " : "");
		json_hex(fido_bio_template_id_ptr(t), fido_bio_template_id_len(t));
		printf(": ");
		json_string(name != NULL && *name != '\0' ? name : NULL);
	}
	printf("}}\n");
	fido_bio_template_array_free(&ta);
	return 0;
}

/* A template named by its hex ID (and, for a rename, its new name). */
static int
cmd_bio_change(fido_dev_t *dev, const char *pin, const char *id_hex, const char *name)
{
	unsigned char id[64];
	size_t id_len;
	fido_bio_template_t *t;
	int r;

	if (unhex(id_hex, id, sizeof(id), &id_len) != 0)
		return fail("template id is not hex", FIDO_ERR_INVALID_ARGUMENT);
	if ((t = fido_bio_template_new()) == NULL || fido_bio_template_set_id(t, id, id_len) != FIDO_OK ||
	    (name != NULL && fido_bio_template_set_name(t, name) != FIDO_OK)) {
		fido_bio_template_free(&t);
		return fail("fido_bio_template_set_id", FIDO_ERR_INTERNAL);
	}
	if (name != NULL)
		r = fido_bio_dev_set_template_name(dev, t, pin);
	else
		r = fido_bio_dev_enroll_remove(dev, t, pin);
	fido_bio_template_free(&t);
	if (r != FIDO_OK)
		return fail(name != NULL ? "fido_bio_dev_set_template_name" : "fido_bio_dev_enroll_remove", r);
	printf("{\"%s\": \"%s\"}\n", name != NULL ? "renamed" : "removed", id_hex);
	return 0;
}

static int
usage(const char *argv0)
{
	fprintf(stderr, "usage: %s SOCKET setpin|changepin NEWPIN_ENV|retries|list|register RP USER DISPLAY ALG|"
	    "delete ID_HEX|rename ID_HEX USER_ID_HEX USER DISPLAY|largeblob-set KEY DATA|largeblob-get KEY|"
	    "credblob RP BLOB|minpinlen N [RP]|forcepinchange|alwaysuv|bio-info|bio-enroll|bio-list|"
	    "bio-rename TEMPLATE_HEX NAME|bio-remove TEMPLATE_HEX  (PIN in $LIBFIDO2_PIN)\n", argv0);
	return 2;
}

int
main(int argc, char **argv)
{
	const char *pin = getenv("LIBFIDO2_PIN");
	fido_dev_t *dev;
	const char *cmd;
	int r, rc;

	if (argc < 3)
		return usage(argv[0]);
	cmd = argv[2];
	fido_init(getenv("FIDO_DEBUG") ? FIDO_DEBUG : 0);
	if ((dev = fido_dev_new()) == NULL)
		return fail("fido_dev_new", FIDO_ERR_INTERNAL);
	if ((r = fido_dev_set_io_functions(dev, &passkeyd_socket_io)) != FIDO_OK ||
	    (r = fido_dev_open(dev, argv[1])) != FIDO_OK) {
		fido_dev_free(&dev);
		return fail("fido_dev_open", r);
	}
	if (strcmp(cmd, "setpin") == 0 && argc == 3 && pin != NULL)
		rc = cmd_setpin(dev, pin, NULL);
	else if (strcmp(cmd, "changepin") == 0 && argc == 4 && pin != NULL && getenv(argv[3]) != NULL)
		rc = cmd_setpin(dev, getenv(argv[3]), pin);
	else if (strcmp(cmd, "retries") == 0 && argc == 3)
		rc = cmd_retries(dev);
	else if (strcmp(cmd, "register") == 0 && argc == 7)
		rc = cmd_register(dev, pin, argv + 3);
	else if (strcmp(cmd, "list") == 0 && argc == 3)
		rc = cmd_list(dev, pin);
	else if (strcmp(cmd, "delete") == 0 && argc == 4)
		rc = cmd_delete(dev, pin, argv[3]);
	else if (strcmp(cmd, "rename") == 0 && argc == 7)
		rc = cmd_rename(dev, pin, argv + 3);
	else if (strcmp(cmd, "largeblob-set") == 0 && argc == 5)
		rc = cmd_largeblob_set(dev, pin, argv[3], argv[4]);
	else if (strcmp(cmd, "largeblob-get") == 0 && argc == 4)
		rc = cmd_largeblob_get(dev, argv[3]);
	else if (strcmp(cmd, "credblob") == 0 && argc == 5)
		rc = cmd_credblob(dev, pin, argv[3], argv[4]);
	else if (strcmp(cmd, "minpinlen") == 0 && (argc == 4 || argc == 5))
		rc = cmd_minpinlen(dev, pin, argv[3], argc == 5 ? argv[4] : NULL);
	else if (strcmp(cmd, "forcepinchange") == 0 && argc == 3)
		rc = cmd_config(dev, pin, fido_dev_force_pin_change, "fido_dev_force_pin_change");
	else if (strcmp(cmd, "alwaysuv") == 0 && argc == 3)
		rc = cmd_config(dev, pin, fido_dev_toggle_always_uv, "fido_dev_toggle_always_uv");
	else if (strcmp(cmd, "bio-info") == 0 && argc == 3)
		rc = cmd_bio_info(dev);
	else if (strcmp(cmd, "bio-enroll") == 0 && argc == 3 && pin != NULL)
		rc = cmd_bio_enroll(dev, pin);
	else if (strcmp(cmd, "bio-list") == 0 && argc == 3 && pin != NULL)
		rc = cmd_bio_list(dev, pin);
	else if (strcmp(cmd, "bio-rename") == 0 && argc == 5 && pin != NULL)
		rc = cmd_bio_change(dev, pin, argv[3], argv[4]);
	else if (strcmp(cmd, "bio-remove") == 0 && argc == 4 && pin != NULL)
		rc = cmd_bio_change(dev, pin, argv[3], NULL);
	else
		rc = usage(argv[0]);
	fido_dev_close(dev);
	fido_dev_free(&dev);
	return rc;
}
