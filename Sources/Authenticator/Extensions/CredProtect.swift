import CTAP

/// credProtect (CTAP 2.1 §12.1): the level the platform asks for is kept with the credential
/// and reported back; the level then decides who may see the credential.
struct CredProtectExtension: AuthenticatorExtension {
    typealias Wire = CredProtect

    func record(
        _ input: CredentialProtection, on credential: inout CredentialExtensionState, _ creation: CredentialCreation
    ) throws(CTAPStatus) {
        credential.credProtect = input
    }

    func makeCredentialOutput(_ input: CredentialProtection, _ context: ExtensionContext) async throws(CTAPStatus)
        -> CredentialProtection?
    {
        context.credential.credProtect
    }
}

extension CredentialProtection {
    /// Whether a credential at this level may answer (CTAP 2.1 §12.1): level 3 only with user
    /// verification; level 2 without it only when the RP named the credential (an allow or
    /// exclude list), never when the authenticator discovers credentials on its own.
    func permits(userVerified: Bool, discovering: Bool) -> Bool {
        switch self {
        case .userVerificationOptional: return true
        case .userVerificationOptionalWithCredentialIDList: return userVerified || !discovering
        case .userVerificationRequired: return userVerified
        }
    }
}
