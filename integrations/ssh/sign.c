/*
 * sk_sign: ssh, ssh-agent and ssh-keygen -Y sign. One authenticatorGetAssertion
 * (CTAP 2.1 §6.2) mapped as OpenSSH's own provider maps it: rp.id is the key's
 * application, the allowList holds its key handle, clientDataHash is SHA-256 of
 * the data OpenSSH signs, and up follows the key's touch flag (no-touch-required
 * keys sign silently; sshd decides whether it accepts that).
 */
#include <stdlib.h>
#include <string.h>

#include "provider.h"

static int
get_assertion(fido_dev_t *dev, fido_assert_t *assert, const uint8_t *data, size_t data_len, const char *application,
    const uint8_t *key_handle, size_t key_handle_len, uint8_t flags, const char *pin)
{
	int built_in = 0, r;

	if (key_handle == NULL || key_handle_len == 0) {
		say("the key file holds no key handle");
		return SK_ERR_GENERAL;
	}
	if ((flags & SK_FLAG_USER_VERIFICATION) && pin == NULL &&
	    (r = verification_without_pin(dev, &built_in, "this verify-required key")) != 0)
		return r;
	if ((r = fido_assert_set_clientdata(assert, data, data_len)) != FIDO_OK ||
	    (r = fido_assert_set_rp(assert, application)) != FIDO_OK ||
	    (r = fido_assert_allow_cred(assert, key_handle, key_handle_len)) != FIDO_OK ||
	    (r = fido_assert_set_up(assert, (flags & SK_FLAG_USER_PRESENCE) ? FIDO_OPT_TRUE : FIDO_OPT_FALSE)) != FIDO_OK ||
	    (r = fido_assert_set_uv(assert, built_in ? FIDO_OPT_TRUE : FIDO_OPT_OMIT)) != FIDO_OK)
		return status_to_sk(dev, r, "preparing the signature");
	if ((r = fido_dev_get_assert(dev, assert, pin)) != FIDO_OK)
		return verification_result(dev, built_in, r, "signing");
	if (fido_assert_count(assert) != 1) {
		say("passkeyd answered %zu assertions to a request naming one key", fido_assert_count(assert));
		return SK_ERR_GENERAL;
	}
	return 0;
}

SK_EXPORT int
sk_sign(uint32_t alg, const uint8_t *data, size_t data_len, const char *application, const uint8_t *key_handle,
    size_t key_handle_len, uint8_t flags, const char *pin, struct sk_option **options,
    struct sk_sign_response **sign_response)
{
	struct sk_sign_response *response = NULL;
	struct sk_request req;
	fido_assert_t *assert = NULL;
	fido_dev_t *dev = NULL;
	int ret;

	if (sign_response == NULL || application == NULL || (data == NULL && data_len != 0))
		return SK_ERR_GENERAL;
	*sign_response = NULL;
	if ((dev = device_for_call(options, &alg, &req, &ret)) == NULL)
		return ret;
	if ((assert = fido_assert_new()) == NULL) {
		ret = SK_ERR_GENERAL;
		goto out;
	}
	if ((ret = get_assertion(dev, assert, data, data_len, application, key_handle, key_handle_len, flags, pin)) != 0)
		goto out;
	ret = SK_ERR_GENERAL;
	if ((response = calloc(1, sizeof(*response))) == NULL)
		goto out;
	response->flags = fido_assert_flags(assert, 0);
	response->counter = fido_assert_sigcount(assert, 0);
	if (key_pack_signature(alg, assert, response) != 0) {
		say("passkeyd's signature is not a %s signature", alg == SK_ALG_ED25519 ? "Ed25519" : "P-256 ECDSA");
		goto out;
	}
	*sign_response = response;
	response = NULL;
	ret = 0;
out:
	if (response != NULL) {
		free(response->sig_r);
		free(response->sig_s);
		free(response);
	}
	fido_assert_free(&assert);
	device_close(&dev);
	return ret;
}
