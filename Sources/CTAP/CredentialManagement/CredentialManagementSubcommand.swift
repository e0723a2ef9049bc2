/// authenticatorCredentialManagement subcommands (CTAP 2.1 §6.8).
public enum CredentialManagementSubcommand: UInt8, CTAPSubcommand, Sendable, Hashable, CaseIterable {
    case getCredsMetadata = 0x01
    case enumerateRPsBegin = 0x02
    case enumerateRPsGetNextRP = 0x03
    case enumerateCredentialsBegin = 0x04
    case enumerateCredentialsGetNextCredential = 0x05
    case deleteCredential = 0x06
    case updateUserInformation = 0x07

    /// Whether the subcommand carries a pinUvAuthParam: the GetNext subcommands continue
    /// an enumeration that was authenticated when it began (§6.8.3, §6.8.5).
    public var isAuthenticated: Bool {
        switch self {
        case .enumerateRPsGetNextRP, .enumerateCredentialsGetNextCredential: return false
        default: return true
        }
    }

    /// Whether the subcommand only reads, so the persistent token (pcmr, CTAP 2.2 §6.8) may begin it.
    public var isReadOnly: Bool {
        switch self {
        case .getCredsMetadata, .enumerateRPsBegin, .enumerateCredentialsBegin: return true
        default: return false
        }
    }
}
