#include "LibFuzzerDriver.h"

#include <stddef.h>
#include <stdint.h>

/* libFuzzer's entry points (compiler-rt FuzzerInterface.h, FuzzerDriver.cpp). */
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int passkeyd_fuzzer_main(int argc, char **argv) {
    return LLVMFuzzerRunDriver(&argc, &argv, LLVMFuzzerTestOneInput);
}
