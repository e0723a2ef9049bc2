/*
 * libpasskeyd-sk's parts, shared between its files. The provider speaks CTAP 2.1
 * through libfido2, and reaches passkeyd through the shipped socket adapter
 * (integrations/c), which checks the socket's folder and owner before a byte is sent.
 */
#ifndef PASSKEYD_SK_PROVIDER_H
#define PASSKEYD_SK_PROVIDER_H

#include <limits.h>

#include <fido.h>

#include "sk-api.h"

/* Only the four sk-api functions leave the library (built with -fvisibility=hidden). */
#define SK_EXPORT __attribute__((visibility("default")))

/* OpenSSH's user handle: the `user` option, NUL-padded to 32 bytes (WebAuthn user.id ≤ 64). */
#define SK_USER_ID_LEN 32

/* The options of one call, parsed (options.c). */
struct sk_request {
	char device[PATH_MAX];            /* the `device` option, "" for passkeyd's default socket */
	uint8_t user_id[SK_USER_ID_LEN];  /* the `user` option, NUL-padded */
	char user_name[SK_USER_ID_LEN + 1];
};

/* options.c: 0, or the sk error to return (after a sentence on stderr). */
int request_parse(struct sk_option **options, struct sk_request *out);

/*
 * device.c: the start of every call: its options parsed into *request, the key type
 * checked (alg NULL: none to check), passkeyd opened through the socket adapter.
 * NULL with *error set (after a sentence) if any step fails.
 */
fido_dev_t *device_for_call(struct sk_option **options, const uint32_t *alg, struct sk_request *request, int *error);
void device_close(fido_dev_t **dev);

/* status.c: one line on stderr, prefixed "passkeyd-sk: ". */
void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* status.c: a libfido2 result as the sk error OpenSSH acts on, with a sentence where one helps. */
int status_to_sk(fido_dev_t *dev, int fido_status, const char *doing);

/*
 * verification.c: how a call that needs user verification gets it when no PIN came
 * with it: 0 with *built_in set (passkeyd's own UV), SK_ERR_PIN_REQUIRED (OpenSSH
 * asks for the PIN and calls again), or an error after a sentence.
 */
int verification_without_pin(fido_dev_t *dev, int *built_in, const char *doing);
/*
 * verification.c: libfido2's status `r` of a call made with built-in UV (built_in set) or
 * the PIN, as the sk error: status_to_sk's, except that failed built-in UV on a passkeyd
 * with a PIN is SK_ERR_PIN_REQUIRED (OpenSSH asks for the PIN).
 */
int verification_result(fido_dev_t *dev, int built_in, int r, const char *doing);

/* key-format.c: COSE algorithm of an sk algorithm, 0 if none. */
int key_cose_type(uint32_t alg);
/* key-format.c: the sk algorithm of a COSE algorithm; -1 if OpenSSH has none. */
int key_sk_alg(int cose_type);
/* key-format.c: the public key in OpenSSH's encoding; 0 or -1. */
int key_pack_public(uint32_t alg, const fido_cred_t *cred, struct sk_enroll_response *out);
/* key-format.c: the first assertion's signature in OpenSSH's encoding; 0 or -1. */
int key_pack_signature(uint32_t alg, const fido_assert_t *assert, struct sk_sign_response *out);
/* key-format.c: copies len bytes into a fresh buffer (NULL, 0 for none); 0 or -1. */
int key_copy(const unsigned char *ptr, size_t len, uint8_t **out, size_t *out_len);
/* key-format.c: frees what an enroll response holds (not the struct). */
void key_clear_enroll(struct sk_enroll_response *response);

#endif
