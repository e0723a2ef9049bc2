// Module PasskeyClient: filled in by its own issue.
