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
usage(const char *argv0)
{
	fprintf(stderr, "usage: %s SOCKET setpin|changepin NEWPIN_ENV|retries|list|register RP USER DISPLAY ALG|"
	    "delete ID_HEX|rename ID_HEX USER_ID_HEX USER DISPLAY  (PIN in $LIBFIDO2_PIN)\n", argv0);
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
	else
		rc = usage(argv[0]);
	fido_dev_close(dev);
	fido_dev_free(&dev);
	return rc;
}
