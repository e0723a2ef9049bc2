/// credProtect levels (CTAP 2.1 §12.1, "Credential Protection").
public enum CredentialProtection: Int, Sendable, Hashable, CaseIterable {
    /// Usable with or without user verification.
    case userVerificationOptional = 1
    /// Without user verification only when the RP names it in an allow list.
    case userVerificationOptionalWithCredentialIDList = 2
    /// Only with user verification.
    case userVerificationRequired = 3
}
