/// authenticatorCredentialManagement subcommands (CTAP 2.1 §6.8).
public enum CredentialManagementSubcommand: UInt8, CTAPSubcommand, Sendable, Hashable, CaseIterable {
    // 0x01 to 0x07, in the table's order.
    case getCredsMetadata = 0x01
    case enumerateRPsBegin, enumerateRPsGetNextRP
    case enumerateCredentialsBegin, enumerateCredentialsGetNextCredential, deleteCredential, updateUserInformation

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
