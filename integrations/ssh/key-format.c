/*
 * Keys and signatures as OpenSSH encodes them (PROTOCOL.u2f): an ECDSA P-256
 * public key is a SEC1 uncompressed point and its signature r and s as big-endian
 * integers; Ed25519 keys and signatures are RFC 8032's raw 32 and 64 bytes.
 * CTAP gives the COSE key's coordinates and an ASN.1 DER ECDSA signature (WebAuthn §6.5.6).
 */
#include <stdlib.h>
#include <string.h>

#include <openssl/bn.h>
#include <openssl/ecdsa.h>

#include "provider.h"

#define P256_COORDINATE 32
#define ED25519_KEY 32
#define ED25519_SIGNATURE 64
#define SEC1_UNCOMPRESSED 0x04

int
key_cose_type(uint32_t alg)
{
	switch (alg) {
	case SK_ALG_ECDSA_P256:
		return COSE_ES256;
	case SK_ALG_ED25519:
		return COSE_EDDSA;
	default:
		return 0;
	}
}

int
key_sk_alg(int cose_type)
{
	switch (cose_type) {
	case COSE_ES256:
		return SK_ALG_ECDSA_P256;
	case COSE_EDDSA:
		return SK_ALG_ED25519;
	default:
		return -1;
	}
}

int
key_copy(const unsigned char *ptr, size_t len, uint8_t **out, size_t *out_len)
{
	*out = NULL;
	*out_len = 0;
	if (ptr == NULL || len == 0)
		return 0;
	if ((*out = malloc(len)) == NULL)
		return -1;
	memcpy(*out, ptr, len);
	*out_len = len;
	return 0;
}

int
key_pack_public(uint32_t alg, const fido_cred_t *cred, struct sk_enroll_response *out)
{
	const unsigned char *ptr = fido_cred_pubkey_ptr(cred);
	size_t len = fido_cred_pubkey_len(cred);

	if (ptr == NULL)
		return -1;
	if (alg == SK_ALG_ED25519)
		return len == ED25519_KEY ? key_copy(ptr, len, &out->public_key, &out->public_key_len) : -1;
	/* libfido2 gives x || y; SEC1 prefixes 0x04 (OpenSSH checks the point is on the curve). */
	if (alg != SK_ALG_ECDSA_P256 || len != 2 * P256_COORDINATE ||
	    (out->public_key = malloc(1 + len)) == NULL)
		return -1;
	out->public_key[0] = SEC1_UNCOMPRESSED;
	memcpy(out->public_key + 1, ptr, len);
	out->public_key_len = 1 + len;
	return 0;
}

static int
bignum_bytes(const BIGNUM *n, uint8_t **out, size_t *out_len)
{
	int len = BN_num_bytes(n);

	if (len <= 0 || len > P256_COORDINATE || (*out = calloc(1, (size_t)len)) == NULL)
		return -1;
	BN_bn2bin(n, *out);
	*out_len = (size_t)len;
	return 0;
}

int
key_pack_signature(uint32_t alg, const fido_assert_t *assert, struct sk_sign_response *out)
{
	const unsigned char *ptr = fido_assert_sig_ptr(assert, 0);
	size_t len = fido_assert_sig_len(assert, 0);
	const BIGNUM *r, *s;
	ECDSA_SIG *sig;
	int ok;

	if (ptr == NULL)
		return -1;
	if (alg == SK_ALG_ED25519)
		return len == ED25519_SIGNATURE ? key_copy(ptr, len, &out->sig_r, &out->sig_r_len) : -1;
	if (alg != SK_ALG_ECDSA_P256 || (sig = d2i_ECDSA_SIG(NULL, &ptr, (long)len)) == NULL)
		return -1;
	ECDSA_SIG_get0(sig, &r, &s);
	ok = bignum_bytes(r, &out->sig_r, &out->sig_r_len) == 0 &&
	    bignum_bytes(s, &out->sig_s, &out->sig_s_len) == 0;
	ECDSA_SIG_free(sig);
	return ok ? 0 : -1;
}

void
key_clear_enroll(struct sk_enroll_response *response)
{
	free(response->public_key);
	free(response->key_handle);
	free(response->signature);
	free(response->attestation_cert);
	free(response->authdata);
	memset(response, 0, sizeof(*response));
}
