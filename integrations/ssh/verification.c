/*
 * User verification for verify-required keys, -K and resident enrolment
 * (CTAP 2.1 §6.5: a pinUvAuthToken from the PIN, or from built-in UV with
 * getPinUvAuthTokenUsingUvWithPermissions). With a PIN in hand libfido2 uses it;
 * without one, passkeyd's built-in UV is used if configured, else OpenSSH is told
 * to ask for the PIN.
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
