import CTAP
import WebAuthn

extension CredentialProtection {
    /// credProtect's client extension processing (CTAP 2.1 §12.1): the level to ask the
    /// authenticator for, or nil to send no credProtect input.
    /// - An unknown policy name is NotSupportedError, as Chromium answers it.
    /// - An authenticator without credProtect gets no input; with `enforce` and a policy above
    ///   `userVerificationOptional` that is NotAllowedError ("the platform MUST NOT create the
    ///   credential"), since the credential would be less protected than the RP requires.
    static func requested(
        _ inputs: AuthenticationExtensionsClientInputsJSON?, info: GetInfoResponse
    ) throws(WebAuthnError) -> CredentialProtection? {
        guard let name = inputs?.credentialProtectionPolicy else { return nil }
        guard let policy = CredentialProtectionPolicy(rawValue: name) else {
            throw .notSupported("'\(name)' is not a credential protection policy.")
        }
        let level: CredentialProtection =
            switch policy {
            case .userVerificationOptional: .userVerificationOptional
            case .userVerificationOptionalWithCredentialIDList: .userVerificationOptionalWithCredentialIDList
            case .userVerificationRequired: .userVerificationRequired
            }
        guard info.extensions.contains(CredProtect.identifier) else {
            if inputs?.enforceCredentialProtectionPolicy == true, level != .userVerificationOptional {
                throw .notAllowed("The authenticator cannot protect the credential as the site requires.")
            }
            return nil
        }
        return level
    }
}
