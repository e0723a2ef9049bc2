/* The version ssh-sk-helper compares with its own before any other call (upper 16 bits). */
#include "provider.h"

SK_EXPORT uint32_t
sk_api_version(void)
{
	return SK_API_VERSION;
}
