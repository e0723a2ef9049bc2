/// How the daemon answers requests for user presence (`--presence`).
public enum PresenceMode: String, Sendable, CaseIterable {
    /// Every request is approved at once: for scripts and CI.
    case auto
    /// Each request waits for an approve or deny sent over the socket (vendor command PRESENCE).
    case prompt
    /// Every request is denied.
    case deny
}

/// How the daemon answers built-in user verification (`--uv`).
public enum VerificationMode: String, Sendable, CaseIterable {
    case auto
    case prompt
    case deny
    /// No built-in UV: getInfo reports `uv` absent.
    case off
}
