/*
 * User verification for verify-required keys, -K and resident enrolment
 * (CTAP 2.1 §6.5: a pinUvAuthToken from the PIN, or from built-in UV with
 * getPinUvAuthTokenUsingUvWithPermissions). With a PIN in hand libfido2 uses it;
 * without one, passkeyd's built-in UV is used if configured, else OpenSSH is told
 * to ask for the PIN. Built-in UV that fails (or is refused) falls back to the PIN too,
 * when passkeyd has one.
 */
#include "provider.h"

int
verification_without_pin(fido_dev_t *dev, int *built_in, const char *doing)
{
	*built_in = 0;
	if (fido_dev_has_uv(dev) && fido_dev_supports_permissions(dev)) {
		*built_in = 1;
		return 0;
	}
	if (fido_dev_has_pin(dev))
		return SK_ERR_PIN_REQUIRED;
	say("%s needs user verification, but passkeyd has neither a PIN nor built-in UV: "
	    "set a PIN with `passkeyctl pin set`", doing);
	return SK_ERR_UNSUPPORTED;
}

/*
 * Built-in UV did not match (CTAP2_ERR_UV_INVALID), has no tries left (UV_BLOCKED, CTAP 2.1
 * §6.5.5.7.3), or passkeyd wants the PIN (PUAT_REQUIRED). A person who declined or did not
 * answer (OPERATION_DENIED, USER_ACTION_TIMEOUT) is not asked for a PIN on top.
 */
static int
uv_failed(int r)
{
	return r == FIDO_ERR_UV_INVALID || r == FIDO_ERR_UV_BLOCKED || r == FIDO_ERR_PIN_REQUIRED;
}

int
verification_result(fido_dev_t *dev, int built_in, int r, const char *doing)
{
	int ret = status_to_sk(dev, r, doing);

	if (ret != 0 && built_in && uv_failed(r) && fido_dev_has_pin(dev)) {
		say("passkeyd has a PIN: OpenSSH's PIN prompt takes it instead (ssh-keygen -K and ssh-add -K: "
		    "type it rather than leaving the prompt empty)");
		return SK_ERR_PIN_REQUIRED;
	}
	return ret;
}
