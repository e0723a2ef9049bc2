/// authenticatorClientPIN subcommands (CTAP 2.1 §6.5.5).
public enum ClientPINSubcommand: UInt8, CTAPSubcommand, Sendable, Hashable, CaseIterable {
    case getPINRetries = 0x01
    case getKeyAgreement = 0x02
    case setPIN = 0x03
    case changePIN = 0x04
    /// The CTAP 2.0 token request, without permissions (§6.5.5.7.1).
    case getPinToken = 0x05
    case getPinUvAuthTokenUsingUvWithPermissions = 0x06
    case getUVRetries = 0x07
    case getPinUvAuthTokenUsingPinWithPermissions = 0x09
}
