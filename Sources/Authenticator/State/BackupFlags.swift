import CTAP

/// Backup eligibility and state (WebAuthn L3 §6.1, flags BE and BS; §6.1.3): whether a credential
/// may be synced, and whether it is backed up now. A hardware key's credentials are neither.
public struct BackupFlags: Sendable, Hashable, Codable {
    public private(set) var eligible: Bool
    public private(set) var backedUp: Bool

    /// Nil for backed up but not eligible: WebAuthn L3 §6.1 forbids BS without BE.
    public init?(eligible: Bool, backedUp: Bool) {
        guard eligible || !backedUp else { return nil }
        self.eligible = eligible
        self.backedUp = backedUp
    }

    /// A single-device credential, as a hardware key makes.
    public static let singleDevice = BackupFlags(eligible: false, backedUp: false)!

    var authenticatorDataFlags: AuthenticatorData.Flags {
        var flags: AuthenticatorData.Flags = []
        if eligible { flags.insert(.backupEligible) }
        if backedUp { flags.insert(.backedUp) }
        return flags
    }
}
