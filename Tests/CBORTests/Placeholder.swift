// Test target CBORTests: filled in by its own issue.
