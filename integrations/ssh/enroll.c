/*
 * sk_enroll: ssh-keygen -t ecdsa-sk / ed25519-sk. One authenticatorMakeCredential
 * (CTAP 2.1 §6.1) mapped as OpenSSH's own provider maps it: rp.id is the
 * application ("ssh:" by default), clientDataHash is SHA-256 of ssh-keygen's
 * challenge, user.id is the `user` option NUL-padded to 32 bytes, and resident or
 * verify-required keys carry credProtect (§12.1) so the authenticator itself keeps
 * them from being listed or used without verification.
 */
#include <stdlib.h>
#include <string.h>

#include "provider.h"

/* The flags a key keeps: FORCE only steers this enrolment. */
#define KEY_FLAGS (SK_FLAG_USER_PRESENCE | SK_FLAG_USER_VERIFICATION | SK_FLAG_RESIDENT)

/*
 * Whether a resident key for (application, user) exists: a silent
 * authenticatorGetAssertion without allowList (§6.2, up=false), verified when
 * possible so credProtect'ed keys are found. FIDO_OK, FIDO_ERR_NO_CREDENTIALS or an error.
 */
static int
resident_exists(fido_dev_t *dev, const char *application, const struct sk_request *req, const char *pin)
{
	static const unsigned char probe[32]; /* no signature is wanted, only the user handles */
	fido_assert_t *assert;
	int r;

	if ((assert = fido_assert_new()) == NULL)
		return FIDO_ERR_INTERNAL;
	if ((r = fido_assert_set_clientdata_hash(assert, probe, sizeof(probe))) != FIDO_OK ||
	    (r = fido_assert_set_rp(assert, application)) != FIDO_OK ||
	    (r = fido_assert_set_up(assert, FIDO_OPT_FALSE)) != FIDO_OK ||
	    (r = fido_assert_set_uv(assert, pin == NULL && fido_dev_has_uv(dev) ? FIDO_OPT_TRUE : FIDO_OPT_OMIT)) != FIDO_OK)
		goto out;
	if ((r = fido_dev_get_assert(dev, assert, pin)) != FIDO_OK)
		goto out;
	r = FIDO_ERR_NO_CREDENTIALS;
	for (size_t i = 0; i < fido_assert_count(assert); i++)
		if (fido_assert_user_id_len(assert, i) == sizeof(req->user_id) &&
		    memcmp(fido_assert_user_id_ptr(assert, i), req->user_id, sizeof(req->user_id)) == 0)
			r = FIDO_OK;
out:
	fido_assert_free(&assert);
	return r;
}

/* The attestation is checked as OpenSSH checks it: against its certificate, else self-attestation. */
static int
attestation_holds(const fido_cred_t *cred)
{
	const char *fmt = fido_cred_fmt(cred);

	if (fmt != NULL && strcmp(fmt, "none") == 0)
		return FIDO_OK;
	return fido_cred_x5c_ptr(cred) != NULL ? fido_cred_verify(cred) : fido_cred_verify_self(cred);
}

static int
make_credential(fido_dev_t *dev, uint32_t alg, const uint8_t *challenge, size_t challenge_len,
    const char *application, uint8_t flags, const char *pin, const struct sk_request *req, fido_cred_t *cred)
{
	int built_in = 0, r;

	if ((flags & SK_FLAG_USER_VERIFICATION) && pin == NULL &&
	    (r = verification_without_pin(dev, &built_in, "a verify-required key")) != 0)
		return r;
	/* A protected authenticator verifies the user for a discoverable credential (§6.1.2 step 11). */
	if ((flags & SK_FLAG_RESIDENT) && pin == NULL && fido_dev_has_uv(dev) && fido_dev_supports_permissions(dev))
		built_in = 1;
	if ((flags & (SK_FLAG_RESIDENT | SK_FLAG_USER_VERIFICATION)) && !fido_dev_supports_cred_prot(dev)) {
		say("passkeyd does not offer credProtect, which resident and verify-required keys need");
		return SK_ERR_UNSUPPORTED;
	}
	if ((r = fido_cred_set_type(cred, key_cose_type(alg))) != FIDO_OK ||
	    (r = fido_cred_set_clientdata(cred, challenge, challenge_len)) != FIDO_OK ||
	    (r = fido_cred_set_rp(cred, application, NULL)) != FIDO_OK ||
	    (r = fido_cred_set_user(cred, req->user_id, sizeof(req->user_id),
	        req->user_name[0] != '\0' ? req->user_name : "openssh", "openssh", NULL)) != FIDO_OK ||
	    (r = fido_cred_set_rk(cred, (flags & SK_FLAG_RESIDENT) ? FIDO_OPT_TRUE : FIDO_OPT_OMIT)) != FIDO_OK ||
	    (r = fido_cred_set_uv(cred, built_in ? FIDO_OPT_TRUE : FIDO_OPT_OMIT)) != FIDO_OK)
		return status_to_sk(dev, r, "preparing the key");
	if ((flags & SK_FLAG_USER_VERIFICATION) &&
	    (r = fido_cred_set_prot(cred, FIDO_CRED_PROT_UV_REQUIRED)) != FIDO_OK)
		return status_to_sk(dev, r, "preparing the key");
	if ((flags & (SK_FLAG_RESIDENT | SK_FLAG_USER_VERIFICATION)) == SK_FLAG_RESIDENT &&
	    (r = fido_cred_set_prot(cred, FIDO_CRED_PROT_UV_OPTIONAL_WITH_ID)) != FIDO_OK)
		return status_to_sk(dev, r, "preparing the key");
	if ((r = fido_dev_make_cred(dev, cred, pin)) != FIDO_OK)
		return verification_result(dev, built_in, r, "making the key");
	if ((r = attestation_holds(cred)) != FIDO_OK) {
		say("passkeyd's attestation of the new key does not verify (%s)", fido_strerr(r));
		return SK_ERR_GENERAL;
	}
	return 0;
}

SK_EXPORT int
sk_enroll(uint32_t alg, const uint8_t *challenge, size_t challenge_len, const char *application,
    uint8_t flags, const char *pin, struct sk_option **options, struct sk_enroll_response **enroll_response)
{
	struct sk_enroll_response *response = NULL;
	struct sk_request req;
	fido_dev_t *dev = NULL;
	fido_cred_t *cred = NULL;
	int ret, r;

	if (enroll_response == NULL || application == NULL || challenge == NULL)
		return SK_ERR_GENERAL;
	*enroll_response = NULL;
	if ((dev = device_for_call(options, &alg, &req, &ret)) == NULL)
		return ret;
	ret = SK_ERR_GENERAL;
	if ((flags & SK_FLAG_RESIDENT) && !(flags & SK_FLAG_FORCE) &&
	    (r = resident_exists(dev, application, &req, pin)) != FIDO_ERR_NO_CREDENTIALS) {
		/* ssh-keygen asks whether to overwrite, then calls again with FORCE. */
		ret = r == FIDO_OK ? SK_ERR_CREDENTIAL_EXISTS
		    : verification_result(dev, pin == NULL && fido_dev_has_uv(dev), r, "looking for an existing resident key");
		goto out;
	}
	if ((cred = fido_cred_new()) == NULL ||
	    (ret = make_credential(dev, alg, challenge, challenge_len, application, flags, pin, &req, cred)) != 0)
		goto out;
	ret = SK_ERR_GENERAL;
	if ((response = calloc(1, sizeof(*response))) == NULL)
		goto out;
	response->flags = flags & KEY_FLAGS;
	if (key_pack_public(alg, cred, response) != 0) {
		say("passkeyd returned a public key OpenSSH cannot use");
		goto out;
	}
	if (key_copy(fido_cred_id_ptr(cred), fido_cred_id_len(cred), &response->key_handle, &response->key_handle_len) != 0 ||
	    key_copy(fido_cred_sig_ptr(cred), fido_cred_sig_len(cred), &response->signature, &response->signature_len) != 0 ||
	    key_copy(fido_cred_x5c_ptr(cred), fido_cred_x5c_len(cred), &response->attestation_cert,
	        &response->attestation_cert_len) != 0 ||
	    key_copy(fido_cred_authdata_ptr(cred), fido_cred_authdata_len(cred), &response->authdata,
	        &response->authdata_len) != 0 ||
	    response->key_handle == NULL)
		goto out;
	*enroll_response = response;
	response = NULL;
	ret = 0;
out:
	if (response != NULL) {
		key_clear_enroll(response);
		free(response);
	}
	fido_cred_free(&cred);
	device_close(&dev);
	return ret;
}
