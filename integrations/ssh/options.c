/*
 * The sk-api options OpenSSH passes (PROTOCOL.u2f, "SSH U2F middleware API"):
 * `device` (ssh-keygen -O device=, here passkeyd's socket path) and `user`
 * (ssh-keygen -O user=, the resident key's user handle). An option this provider
 * does not know is ignored unless it is marked required, which must fail.
 */
#include <stdio.h>
#include <string.h>

#include "provider.h"

/* libfido2 device names of passkeyd, as the preload library lists them ("passkeyd:<socket>"). */
#define DEVICE_PREFIX "passkeyd:"

int
request_parse(struct sk_option **options, struct sk_request *out)
{
	memset(out, 0, sizeof(*out));
	for (size_t i = 0; options != NULL && options[i] != NULL; i++) {
		const struct sk_option *o = options[i];

		if (o->name == NULL || o->value == NULL) {
			say("an option without a name or value reached the provider");
			return SK_ERR_GENERAL;
		}
		if (strcmp(o->name, "device") == 0) {
			const char *path = o->value;

			if (strncmp(path, DEVICE_PREFIX, strlen(DEVICE_PREFIX)) == 0)
				path += strlen(DEVICE_PREFIX);
			if (*path != '/' || strlen(path) >= sizeof(out->device)) {
				say("device=%s is not an absolute path to passkeyd's socket", o->value);
				return SK_ERR_GENERAL;
			}
			memcpy(out->device, path, strlen(path) + 1);
		} else if (strcmp(o->name, "user") == 0) {
			size_t len = strlen(o->value);

			if (len > SK_USER_ID_LEN) {
				say("user=%s is longer than the %d bytes of an OpenSSH user handle", o->value, SK_USER_ID_LEN);
				return SK_ERR_GENERAL;
			}
			memset(out->user_id, 0, sizeof(out->user_id));
			memcpy(out->user_id, o->value, len);
			memcpy(out->user_name, o->value, len + 1);
		} else if (o->required) {
			say("the required option \"%s\" is not one this provider knows (it knows device and user)", o->name);
			return SK_ERR_UNSUPPORTED;
		}
	}
	return 0;
}
