/*
 * What passkeyd answered, as OpenSSH needs it. libfido2 reports CTAP 2.1 status
 * codes (§8.2) as FIDO_ERR_* of the same value. SK_ERR_PIN_REQUIRED makes ssh,
 * ssh-keygen and ssh-add ask for the PIN and call again; every other failure gets
 * one sentence here, since OpenSSH itself only prints a generic error.
 */
#include <stdarg.h>
#include <stdio.h>

#include "provider.h"

void
say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("passkeyd-sk: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

int
status_to_sk(fido_dev_t *dev, int r, const char *doing)
{
	int tries = -1;

	switch (r) {
	case FIDO_OK:
		return 0;
	case FIDO_ERR_PIN_REQUIRED: /* CTAP2_ERR_PUAT_REQUIRED: ask for the PIN */
		return SK_ERR_PIN_REQUIRED;
	case FIDO_ERR_PIN_INVALID: /* ask again: OpenSSH counts its own attempts */
		if (fido_dev_get_retry_count(dev, &tries) == FIDO_OK)
			say("wrong PIN (%d tries left before passkeyd blocks it)", tries);
		else
			say("wrong PIN");
		return SK_ERR_PIN_REQUIRED;
	case FIDO_ERR_PIN_AUTH_BLOCKED:
		say("three wrong PINs in a row: passkeyd takes no PIN until it is replugged (`passkeyctl replug`)");
		return SK_ERR_GENERAL;
	case FIDO_ERR_PIN_BLOCKED:
		say("the PIN is blocked after too many wrong tries; only `passkeyctl reset` (which erases every key) clears it");
		return SK_ERR_GENERAL;
	case FIDO_ERR_PIN_NOT_SET:
		say("passkeyd has no PIN; set one with `passkeyctl pin set`");
		return SK_ERR_GENERAL;
	case FIDO_ERR_UV_BLOCKED:
	case FIDO_ERR_UV_INVALID:
		say("passkeyd's built-in user verification failed while %s", doing);
		return SK_ERR_GENERAL;
	case FIDO_ERR_OPERATION_DENIED:
		say("the touch was refused while %s (user presence denied)", doing);
		return SK_ERR_GENERAL;
	case FIDO_ERR_USER_ACTION_TIMEOUT:
	case FIDO_ERR_ACTION_TIMEOUT:
		say("nobody confirmed presence in time while %s", doing);
		return SK_ERR_GENERAL;
	case FIDO_ERR_NO_CREDENTIALS:
		say("passkeyd holds no key matching this key handle and application while %s: the key file "
		    "belongs to another authenticator, was edited, or its credential was deleted", doing);
		return SK_ERR_GENERAL;
	case FIDO_ERR_KEY_STORE_FULL:
		say("passkeyd's keystore is full");
		return SK_ERR_GENERAL;
	case FIDO_ERR_UNSUPPORTED_ALGORITHM:
	case FIDO_ERR_UNSUPPORTED_OPTION:
	case FIDO_ERR_UNSUPPORTED_EXTENSION:
		say("passkeyd does not support what %s needs (%s)", doing, fido_strerr(r));
		return SK_ERR_UNSUPPORTED;
	case FIDO_ERR_TX:
	case FIDO_ERR_RX:
	case FIDO_ERR_RX_NOT_CBOR:
	case FIDO_ERR_RX_INVALID_CBOR:
		say("lost contact with passkeyd while %s (%s)", doing, fido_strerr(r));
		return SK_ERR_GENERAL;
	default:
		say("passkeyd refused %s: %s (0x%02x)", doing, fido_strerr(r), (unsigned)r & 0xff);
		return SK_ERR_GENERAL;
	}
}
