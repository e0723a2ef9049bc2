// Module WebAuthn: filled in by its own issue.
