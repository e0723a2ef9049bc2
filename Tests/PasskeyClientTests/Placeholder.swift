// Test target PasskeyClientTests: filled in by its own issue.
