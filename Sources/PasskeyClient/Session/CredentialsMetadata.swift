import PasskeydMacros

/// getCredsMetadata's answer (CTAP 2.1 §6.8.2).
@MemberwiseInit
public struct CredentialsMetadata: Sendable, Hashable {
    /// Discoverable credentials stored.
    public var existing: Int
    /// How many more could be stored at most (fewer, depending on algorithm and size).
    public var maxPossibleRemaining: Int

    /// The two counts as getCredsMetadata reports them.
}
