// Test target CTAPTests: filled in by its own issue.
