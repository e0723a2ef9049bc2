/*
 * sk_load_resident_keys: ssh-keygen -K and ssh-add -K. Credential management
 * (CTAP 2.1 §6.8: enumerateRPs, then enumerateCredentials of each RP whose id
 * begins "ssh:", as OpenSSH names its applications) under a pinUvAuthToken.
 * A key made verify-required (credProtect userVerificationRequired) comes back so.
 * The token comes from the PIN OpenSSH passes, or, with none, from passkeyd's built-in UV.
 */
#include <stdlib.h>
#include <string.h>

#include <fido/credman.h>

#include "provider.h"

#define SSH_APPLICATION_PREFIX "ssh:"

static void
resident_free(struct sk_resident_key *rk)
{
	if (rk == NULL)
		return;
	free(rk->application);
	free(rk->user_id);
	key_clear_enroll(&rk->key);
	free(rk);
}

/* One credential as OpenSSH's resident key; NULL if OpenSSH has no such key type. */
static struct sk_resident_key *
resident_key(const char *application, const fido_cred_t *cred, size_t slot, int *failed)
{
	struct sk_resident_key *rk;
	int alg = key_sk_alg(fido_cred_type(cred));

	*failed = 0;
	if (alg < 0)
		return NULL;
	*failed = 1;
	if ((rk = calloc(1, sizeof(*rk))) == NULL)
		return NULL;
	rk->alg = (uint32_t)alg;
	rk->slot = slot;
	rk->flags = SK_FLAG_USER_PRESENCE | SK_FLAG_RESIDENT;
	if (fido_cred_prot(cred) == FIDO_CRED_PROT_UV_REQUIRED)
		rk->flags |= SK_FLAG_USER_VERIFICATION;
	rk->key.flags = rk->flags;
	if ((rk->application = strdup(application)) == NULL ||
	    key_pack_public(rk->alg, cred, &rk->key) != 0 ||
	    key_copy(fido_cred_id_ptr(cred), fido_cred_id_len(cred), &rk->key.key_handle, &rk->key.key_handle_len) != 0 ||
	    key_copy(fido_cred_user_id_ptr(cred), fido_cred_user_id_len(cred), &rk->user_id, &rk->user_id_len) != 0) {
		resident_free(rk);
		return NULL;
	}
	*failed = 0;
	return rk;
}

static int
append(struct sk_resident_key ***rks, size_t *nrks, struct sk_resident_key *rk)
{
	struct sk_resident_key **grown = realloc(*rks, (*nrks + 1) * sizeof(**rks));

	if (grown == NULL)
		return -1;
	*rks = grown;
	(*rks)[(*nrks)++] = rk;
	return 0;
}

/* 0 or the sk error (built_in: the token is built-in UV's). */
static int
read_keys(fido_dev_t *dev, const char *pin, int built_in, struct sk_resident_key ***rks, size_t *nrks)
{
	fido_credman_rp_t *rps = NULL;
	fido_credman_rk_t *creds = NULL;
	size_t slot = 0;
	int failed = 0, r, ret = SK_ERR_GENERAL;

	if ((rps = fido_credman_rp_new()) == NULL)
		goto out;
	if ((r = fido_credman_get_dev_rp(dev, rps, pin)) != FIDO_OK) {
		ret = verification_result(dev, built_in, r, "listing resident keys");
		goto out;
	}
	for (size_t i = 0; i < fido_credman_rp_count(rps); i++) {
		const char *application = fido_credman_rp_id(rps, i);

		if (application == NULL || strncmp(application, SSH_APPLICATION_PREFIX, strlen(SSH_APPLICATION_PREFIX)) != 0)
			continue;
		fido_credman_rk_free(&creds);
		if ((creds = fido_credman_rk_new()) == NULL)
			goto out;
		if ((r = fido_credman_get_dev_rk(dev, application, creds, pin)) != FIDO_OK) {
			ret = verification_result(dev, built_in, r, "listing resident keys");
			goto out;
		}
		for (size_t j = 0; j < fido_credman_rk_count(creds); j++) {
			struct sk_resident_key *rk = resident_key(application, fido_credman_rk(creds, j), slot, &failed);

			if (failed || (rk != NULL && append(rks, nrks, rk) != 0)) {
				resident_free(rk);
				goto out;
			}
			if (rk != NULL)
				slot++;
		}
	}
	ret = 0;
out:
	fido_credman_rk_free(&creds);
	fido_credman_rp_free(&rps);
	return ret;
}

SK_EXPORT int
sk_load_resident_keys(const char *pin, struct sk_option **options, struct sk_resident_key ***rksp, size_t *nrksp)
{
	struct sk_resident_key **rks = NULL;
	struct sk_request req;
	fido_dev_t *dev = NULL;
	size_t nrks = 0;
	int built_in = 0, ret;

	if (rksp == NULL || nrksp == NULL)
		return SK_ERR_GENERAL;
	*rksp = NULL;
	*nrksp = 0;
	if ((dev = device_for_call(options, NULL, &req, &ret)) == NULL)
		return ret;
	/*
	 * Without a PIN, libfido2's credential management asks passkeyd's built-in UV for the
	 * token (getPinUvAuthTokenUsingUvWithPermissions with the cm permission, CTAP 2.1 §6.5.5.7.3)
	 * when getInfo shows uv and pinUvAuthToken; only without built-in UV is OpenSSH told to ask
	 * for the PIN.
	 */
	if (pin != NULL && *pin == '\0')
		pin = NULL; /* Enter at ssh-keygen -K's PIN prompt: no PIN given */
	if (pin == NULL && (ret = verification_without_pin(dev, &built_in, "listing resident keys")) != 0)
		goto out;
	if ((ret = read_keys(dev, pin, built_in, &rks, &nrks)) != 0)
		goto out;
	*rksp = rks;
	*nrksp = nrks;
	rks = NULL;
	nrks = 0;
out:
	for (size_t i = 0; i < nrks; i++)
		resident_free(rks[i]);
	free(rks);
	device_close(&dev);
	return ret;
}
