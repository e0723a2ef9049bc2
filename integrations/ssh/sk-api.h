/*
 * The OpenSSH security-key provider ABI, version 0x000a0000 (OpenSSH 9.x): the
 * four functions ssh-sk-helper looks up with dlsym, their structs and constants,
 * declared here from the documented interface (OpenSSH's PROTOCOL.u2f, "SSH U2F
 * middleware API"). ssh-sk-helper refuses a provider whose major version differs.
 */
#ifndef PASSKEYD_SK_API_H
#define PASSKEYD_SK_API_H

#include <stddef.h>
#include <stdint.h>

/* The major version: the upper 16 bits must match what OpenSSH expects. */
#define SK_API_VERSION 0x000a0000U

/* Key flags (the `flags` byte of enroll, sign and the key file). */
enum {
	SK_FLAG_USER_PRESENCE = 0x01,     /* a touch is needed for each signature */
	SK_FLAG_USER_VERIFICATION = 0x04, /* a PIN (or built-in UV) is needed for each signature */
	SK_FLAG_FORCE = 0x10,             /* enroll: overwrite a resident key of the same user */
	SK_FLAG_RESIDENT = 0x20,          /* enroll: a discoverable credential */
};

/* Key types. */
enum {
	SK_ALG_ECDSA_P256 = 0x00,
	SK_ALG_ED25519 = 0x01,
};

/* Results; ssh-sk.c turns each into its own error (PIN_REQUIRED: ask for the PIN, retry). */
enum {
	SK_ERR_GENERAL = -1,
	SK_ERR_UNSUPPORTED = -2,
	SK_ERR_PIN_REQUIRED = -3,
	SK_ERR_DEVICE_NOT_FOUND = -4,
	SK_ERR_CREDENTIAL_EXISTS = -5,
};

struct sk_enroll_response {
	uint8_t flags;              /* the key's flags as enrolled */
	uint8_t *public_key;        /* ECDSA: SEC1 uncompressed point; Ed25519: 32 bytes */
	size_t public_key_len;
	uint8_t *key_handle;        /* the credential ID */
	size_t key_handle_len;
	uint8_t *signature;         /* the attestation signature */
	size_t signature_len;
	uint8_t *attestation_cert;  /* DER, absent for self attestation */
	size_t attestation_cert_len;
	uint8_t *authdata;          /* the authenticator data of the attestation */
	size_t authdata_len;
};

struct sk_sign_response {
	uint8_t flags;              /* the authenticator data's flags byte */
	uint32_t counter;           /* the signature counter */
	uint8_t *sig_r;             /* ECDSA: r, big-endian; Ed25519: the 64-byte signature */
	size_t sig_r_len;
	uint8_t *sig_s;             /* ECDSA: s, big-endian; Ed25519: unused */
	size_t sig_s_len;
};

struct sk_resident_key {
	uint32_t alg;
	size_t slot;
	char *application;
	struct sk_enroll_response key;
	uint8_t flags;
	uint8_t *user_id;
	size_t user_id_len;
};

/* A NULL-terminated array of these reaches every call; `required` options must be understood. */
struct sk_option {
	char *name;
	char *value;
	uint8_t required;
};

uint32_t sk_api_version(void);

int sk_enroll(uint32_t alg, const uint8_t *challenge, size_t challenge_len,
    const char *application, uint8_t flags, const char *pin,
    struct sk_option **options, struct sk_enroll_response **enroll_response);

int sk_sign(uint32_t alg, const uint8_t *data, size_t data_len,
    const char *application, const uint8_t *key_handle, size_t key_handle_len,
    uint8_t flags, const char *pin, struct sk_option **options,
    struct sk_sign_response **sign_response);

int sk_load_resident_keys(const char *pin, struct sk_option **options,
    struct sk_resident_key ***rks, size_t *nrks);

#endif
