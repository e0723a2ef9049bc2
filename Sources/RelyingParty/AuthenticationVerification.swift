import CTAP
import Crypto
import WebAuthn

/// The outcome of a verified authentication (WebAuthn L3 §7.2 step 24).
public struct VerifiedAuthentication: Sendable, Hashable {
    /// The credential record with its new signature counter and backup state, to store back.
    public var credential: RegisteredCredential
    /// The account signed in to.
    public var userHandle: [UInt8]
    /// Whether the authenticator verified the user (the UV flag).
    public var userVerified: Bool
}

extension RelyingParty {
    /// Verifies an authentication response (WebAuthn L3 §7.2) against the options it answers.
    ///
    /// - Parameters:
    ///   - response: the client's `AuthenticationResponseJSON`.
    ///   - options: the request options the response answers.
    ///   - user: the user handle of the account identified before the ceremony, or nil when the
    ///     response's `userHandle` identifies it (step 6).
    ///   - requireUserVerification: step 16's policy; by default, whether the options asked
    ///     for `userVerification: required`.
    ///   - lookup: the credential record with this credential ID, if any.
    public func verifyAuthentication(
        _ response: AuthenticationResponseJSON,
        options: PublicKeyCredentialRequestOptionsJSON,
        user: [UInt8]? = nil,
        requireUserVerification: Bool? = nil,
        credential lookup: (_ credentialID: [UInt8]) -> RegisteredCredential?
    ) throws(VerificationError) -> VerifiedAuthentication {
        try checkCredentialIdentity(response)
        let assertion = response.response
        // Step 5.
        if !options.allowCredentials.isEmpty, !options.allowCredentials.contains(where: { $0.id == response.rawId }) {
            throw .credentialNotAllowed
        }
        // Step 6.
        guard let record = lookup(response.rawId), record.id == response.rawId else { throw .unknownCredential }
        if let user {
            guard record.userHandle == user else { throw .credentialNotOwnedByUser }
            if let userHandle = assertion.userHandle, userHandle != user { throw .userHandleMismatch }
        } else {
            guard let userHandle = assertion.userHandle else { throw .missingUserHandle }
            guard userHandle == record.userHandle else { throw .userHandleMismatch }
        }
        // Steps 7–13.
        _ = try checkClientData(assertion.clientDataJSON, type: .get, challenge: options.challenge)
        let authData: AuthenticatorData
        do { authData = try AuthenticatorData(bytes: assertion.authenticatorData) } catch {
            throw .malformedAuthenticatorData
        }
        // Steps 14–17.
        let requireUV = requireUserVerification ?? (options.userVerification == .required)
        try checkAuthenticatorData(authData, requireUserVerification: requireUV)
        // Step 18: BE is fixed at creation (§6.1.3), so a change means another credential or a broken authenticator.
        guard authData.flags.contains(.backupEligible) == record.backupEligible else { throw .backupEligibilityChanged }
        // Steps 20–21.
        let clientDataHash = Array(SHA256.hash(data: assertion.clientDataJSON))
        guard try record.publicKey.verifies(assertion.signature, over: assertion.authenticatorData + clientDataHash)
        else {
            throw .invalidSignature
        }
        // Step 22: a counter that is used must grow; both zero means the authenticator keeps none.
        if authData.signCount != 0 || record.signCount != 0, authData.signCount <= record.signCount {
            throw .signCountNotIncreased(stored: record.signCount, received: authData.signCount)
        }
        // Step 24.
        var updated = record
        updated.signCount = authData.signCount
        updated.backedUp = authData.flags.contains(.backedUp)
        return VerifiedAuthentication(
            credential: updated, userHandle: record.userHandle,
            userVerified: authData.flags.contains(.userVerified))
    }
}
