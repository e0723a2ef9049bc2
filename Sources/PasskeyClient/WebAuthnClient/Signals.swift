import CTAP
import WebAuthn

/// The Signal API (WebAuthn L3 §5.1.10): a relying party tells the client which credentials
/// it no longer knows, which it still accepts, and what a user is called now. The client
/// applies that to the authenticator through credential management (CTAP 2.1 §6.8), with a
/// pinUvAuthToken bound to the RP ID. Signals are silent: nothing matching on the
/// authenticator, or an authenticator without credential management, is not an error; only
/// malformed input (TypeError) or an RP ID the origin may not use (SecurityError) is.
extension WebAuthnClient {
    /// signalUnknownCredential (§5.1.10.1): deletes that credential of that RP, if present.
    public func signalUnknownCredential(rpId: String, credentialId: String) async throws(WebAuthnError) {
        let id = try Self.decodeSignal(credentialId, "credentialId")
        try await withCredentials(rpId: rpId) { credentials, management throws(CTAP2Error) in
            for credential in credentials where credential.credentialID == id {
                try await management.deleteCredential(id: credential.credentialID)
            }
        }
    }

    /// signalAllAcceptedCredentials (§5.1.10.2): deletes the user's credentials of that RP that
    /// are not in the list.
    public func signalAllAcceptedCredentials(rpId: String, userId: String, allAcceptedCredentialIds: [String])
        async throws(WebAuthnError)
    {
        let user = try Self.decodeSignal(userId, "userId")
        var accepted: Set<[UInt8]> = []
        for id in allAcceptedCredentialIds { accepted.insert(try Self.decodeSignal(id, "allAcceptedCredentialIds")) }
        try await withCredentials(rpId: rpId) { credentials, management throws(CTAP2Error) in
            for credential in credentials
            where credential.user.id == user && !accepted.contains(credential.credentialID) {
                try await management.deleteCredential(id: credential.credentialID)
            }
        }
    }

    /// signalCurrentUserDetails (§5.1.10.3): renames the user's credentials of that RP.
    public func signalCurrentUserDetails(rpId: String, userId: String, name: String, displayName: String)
        async throws(WebAuthnError)
    {
        let user = try Self.decodeSignal(userId, "userId")
        try await withCredentials(rpId: rpId) { credentials, management throws(CTAP2Error) in
            for credential in credentials
            where credential.user.id == user
                && (credential.user.name != name || credential.user.displayName != displayName)
            {
                try await management.updateUserInformation(
                    credentialID: credential.credentialID,
                    user: PublicKeyCredentialUserEntity(id: user, name: name, displayName: displayName))
            }
        }
    }

    /// The RP ID check of §5.1.10 step 2 (as for create and get), then the RP's discoverable
    /// credentials and a credential management session to change them.
    private func withCredentials(
        rpId: String, _ body: ([ResidentCredential], CredentialManagementSession) async throws(CTAP2Error) -> Void
    ) async throws(WebAuthnError) {
        let rpID = try rpIDPolicy.validate(rpID: rpId, origin: origin)
        let session = makeSession()
        let info = try await call(rpID) { () async throws(CTAP2Error) in try await session.getInfo() }
        guard CredentialManagementSession.command(for: info) != nil,
            info.options["uv"] == true || info.options["clientPin"] == true
        else { return }
        let method = try await planUserVerification(
            .required, info: info, session: session, permissions: .cm, rpID: rpID)
        guard case .token(let token) = method else { return }
        try await call(rpID) { () async throws(CTAP2Error) in
            let management = try CredentialManagementSession(session: session, token: token, info: info)
            try await body(try await management.credentials(rpID: rpID), management)
        }
    }

    private static func decodeSignal(_ text: String, _ member: String) throws(WebAuthnError) -> [UInt8] {
        do { return try Base64URL.decode(text) } catch { throw WebAuthnError(.type, "\(member) is not base64url.") }
    }
}
