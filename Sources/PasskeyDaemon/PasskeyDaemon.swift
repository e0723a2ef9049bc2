// Module PasskeyDaemon: filled in by its own issue.
