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
        _ inputs: AuthenticationExtensionsClientInputsJSON?, selection: AuthenticatorSelectionCriteria,
        info: GetInfoResponse
    ) throws(WebAuthnError) -> CredentialProtection? {
        guard let level = try policy(inputs, selection: selection) else { return nil }
        guard info.extensions.contains(CredProtect.identifier) else {
            if inputs?.enforceCredentialProtectionPolicy == true, level != .userVerificationOptional {
                throw .notAllowed("The authenticator cannot protect the credential as the site requires.")
            }
            return nil
        }
        return level
    }

    /// The level named by `credentialProtectionPolicy`, checked against the rest of the request
    /// before anything is asked of the person or the authenticator, as Chromium checks it (the page
    /// can tell): an unknown name, `userVerificationRequired` without `userVerification: required`
    /// (the credential could never be used by the ceremony the RP asks for), and an enforced
    /// `userVerificationOptional` for a required discoverable credential (which Chromium protects at
    /// least with a credential ID list) are NotSupportedError.
    static func policy(
        _ inputs: AuthenticationExtensionsClientInputsJSON?, selection: AuthenticatorSelectionCriteria
    ) throws(WebAuthnError) -> CredentialProtection? {
        guard let name = inputs?.credentialProtectionPolicy else { return nil }
        guard let policy = CredentialProtectionPolicy(rawValue: name) else {
            throw .notSupported("'\(name)' is not a credential protection policy.")
        }
        let inconsistent: Bool
        switch policy {
        case .userVerificationOptional:
            inconsistent =
                inputs?.enforceCredentialProtectionPolicy == true && selection.effectiveResidentKey == .required
        case .userVerificationOptionalWithCredentialIDList: inconsistent = false
        case .userVerificationRequired: inconsistent = selection.userVerification != .required
        }
        if inconsistent {
            // Chromium's sentence: the page sees the message, and a page must not tell the two apart.
            throw .notSupported(
                "Requested protection policy is inconsistent or incongruent with other requested parameters.")
        }
        return switch policy {
        case .userVerificationOptional: .userVerificationOptional
        case .userVerificationOptionalWithCredentialIDList: .userVerificationOptionalWithCredentialIDList
        case .userVerificationRequired: .userVerificationRequired
        }
    }
}
