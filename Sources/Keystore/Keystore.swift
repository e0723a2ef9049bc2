// Module Keystore: filled in by its own issue.
