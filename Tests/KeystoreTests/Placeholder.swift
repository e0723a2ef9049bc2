// Test target KeystoreTests: filled in by its own issue.
