// Executable passkeybench: `make bench`.
