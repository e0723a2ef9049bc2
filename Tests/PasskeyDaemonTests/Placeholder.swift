// Test target PasskeyDaemonTests: filled in by its own issue.
