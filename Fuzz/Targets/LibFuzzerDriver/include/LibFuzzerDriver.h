#ifndef PASSKEYD_LIBFUZZER_DRIVER_H
#define PASSKEYD_LIBFUZZER_DRIVER_H

/// Runs libFuzzer's driver over the process's LLVMFuzzerTestOneInput, as libFuzzer's own
/// `main` would. SwiftPM links an executable target's entry point as `main`, so the fuzz
/// targets enter through this rather than through libFuzzer's `main`.
int passkeyd_fuzzer_main(int argc, char **argv);

#endif
