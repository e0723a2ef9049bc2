/*
 * A libfido2 program that knows nothing of passkeyd and opens devices the newer way:
 * fido_dev_info_manifest, then fido_dev_new_with_info and fido_dev_open_with_info.
 * Run under `passkeyctl exec` (test_libfido2_tools.py) it must reach passkeyd.
 *
 * usage: libfido2_with_info
 * Prints "<path> aaguid <hex>" for each device it could open and read getInfo from;
 * exit status 0 only when at least one was.
 */
#include <stdio.h>

#include <fido.h>

#define MAX_DEVICES 16

int
main(void)
{
	fido_dev_info_t *list;
	size_t found = 0, answered = 0;

	fido_init(0);
	if ((list = fido_dev_info_new(MAX_DEVICES)) == NULL ||
	    fido_dev_info_manifest(list, MAX_DEVICES, &found) != FIDO_OK) {
		fprintf(stderr, "fido_dev_info_manifest failed\n");
		return 1;
	}
	for (size_t i = 0; i < found; i++) {
		const fido_dev_info_t *di = fido_dev_info_ptr(list, i);
		fido_dev_t *dev = fido_dev_new_with_info(di);
		fido_cbor_info_t *info = fido_cbor_info_new();
		int r;

		if (dev == NULL || info == NULL) {
			fprintf(stderr, "%s: out of memory\n", fido_dev_info_path(di));
		} else if ((r = fido_dev_open_with_info(dev)) != FIDO_OK) {
			fprintf(stderr, "%s: fido_dev_open_with_info: %s\n", fido_dev_info_path(di), fido_strerr(r));
		} else {
			if ((r = fido_dev_get_cbor_info(dev, info)) == FIDO_OK) {
				const unsigned char *aaguid = fido_cbor_info_aaguid_ptr(info);
				printf("%s aaguid ", fido_dev_info_path(di));
				for (size_t j = 0; j < fido_cbor_info_aaguid_len(info); j++)
					printf("%02x", aaguid[j]);
				printf("\n");
				answered++;
			} else {
				fprintf(stderr, "%s: fido_dev_get_cbor_info: %s\n", fido_dev_info_path(di), fido_strerr(r));
			}
			fido_dev_close(dev);
		}
		fido_cbor_info_free(&info);
		fido_dev_free(&dev);
	}
	fido_dev_info_free(&list, MAX_DEVICES);
	return answered > 0 ? 0 : 1;
}
