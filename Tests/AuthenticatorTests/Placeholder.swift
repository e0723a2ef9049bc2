// Test target AuthenticatorTests: filled in by its own issue.
