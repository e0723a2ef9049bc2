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

/// How the daemon answers for the person, as STATUS reports it (docs/vendor-commands.md), so
/// `passkeyctl info`, `status` and `doctor` can say whether anybody is ever asked.
public struct PromptModes: Sendable, Equatable {
    public var presence: PresenceMode
    public var verification: VerificationMode
    /// Whether prompts are also shown on the desktop (a session bus and notify-send were found).
    public var desktopPrompt: Bool

    public init(presence: PresenceMode, verification: VerificationMode, desktopPrompt: Bool) {
        self.presence = presence
        self.verification = verification
        self.desktopPrompt = desktopPrompt
    }

}
