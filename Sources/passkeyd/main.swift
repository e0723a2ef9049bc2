// Executable passkeyd: filled in by its own issue.
