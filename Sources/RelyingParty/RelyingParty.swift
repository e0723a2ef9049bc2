// Module RelyingParty: filled in by its own issue.
