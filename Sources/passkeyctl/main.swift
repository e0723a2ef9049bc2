// Executable passkeyctl: filled in by its own issue.
