// Module Authenticator: filled in by its own issue.
