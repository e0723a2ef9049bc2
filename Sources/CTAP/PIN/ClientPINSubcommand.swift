/// authenticatorClientPIN subcommands (CTAP 2.1 §6.5.5).
public enum ClientPINSubcommand: UInt8, CTAPSubcommand, Sendable, Hashable, CaseIterable {
    // 0x01 to 0x07, in the table's order; 0x08 is reserved.
    case getPINRetries = 0x01
    case getKeyAgreement, setPIN, changePIN
    /// The CTAP 2.0 token request, without permissions (§6.5.5.7.1).
    case getPinToken
    case getPinUvAuthTokenUsingUvWithPermissions, getUVRetries
    case getPinUvAuthTokenUsingPinWithPermissions = 0x09
}
