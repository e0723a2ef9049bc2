// Test target RelyingPartyTests: filled in by its own issue.
