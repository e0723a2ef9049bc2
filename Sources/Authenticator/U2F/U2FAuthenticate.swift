import CTAP

extension Authenticator {
    /// U2F_AUTHENTICATE (FIDO U2F Raw Message Formats §5). Any ES256 credential of ours for
    /// the application answers: a U2F key handle, a non-resident CTAP2 credential ID, or a
    /// discoverable credential's ID (CTAP 2.1 §10.3). Its counter is the one CTAP2 advances.
    func u2fAuthenticate(_ request: U2FAuthenticateRequest) async throws(StatusWord) -> U2FResponse {
        // §5.3: a key handle not made by this device for this application is SW_WRONG_DATA.
        guard let candidate = try await u2fCandidate(request.keyHandle, application: request.application) else {
            throw .wrongData
        }
        var userPresence: UInt8 = 0
        switch request.control {
        case .checkOnly:
            // §5.1: a key handle of ours answers "test of user presence required".
            throw .conditionsNotSatisfied
        case .enforceUserPresence:
            try await u2fPresence(UserActionRequest(purpose: .getAssertion))
            userPresence = AuthenticatorData.Flags.userPresent.rawValue
        case .dontEnforceUserPresence:
            break
        }
        return try await u2fDevice { () async throws(CTAPStatus) -> U2FResponse in
            let counter = try await nextSignCount(for: candidate)
            let signed = U2FSignedData.authentication(
                application: request.application, userPresence: userPresence, counter: counter,
                challenge: request.challenge)
            return .authentication(
                userPresence: userPresence, counter: counter, signature: try candidate.key.sign(signed))
        }
    }

    /// The credential behind a key handle, if it is ours, for this application, ES256 (the only
    /// U2F algorithm), and usable without user verification (credProtect, CTAP 2.1 §12.1).
    private func u2fCandidate(_ keyHandle: [UInt8], application: [UInt8]) async throws(StatusWord)
        -> AssertionCandidate?
    {
        let wrappingKey = try await u2fDevice { () async throws(CTAPStatus) in try await deviceState().wrappingKey }
        let candidate: AssertionCandidate?
        if let unwrapped = CredentialWrapping.unwrap(keyHandle, rpIDHash: application, wrappingKey: wrappingKey) {
            candidate = AssertionCandidate(
                id: keyHandle, key: unwrapped.key, resident: nil, extensions: unwrapped.extensions)
        } else {
            let stored = try await u2fDevice { () async throws(CTAPStatus) -> CredentialSource? in
                do throws(CredentialStoreError) { return try await store.credential(id: keyHandle) } catch {
                    throw storeFailure(error)
                }
            }
            candidate = stored.flatMap {
                $0.rpIDHash == application ? Self.candidate(for: $0) : nil
            }
        }
        guard let candidate, candidate.key.algorithm == .es256,
            candidate.extensions[CredProtectExtension.stored].permits(userVerified: false, discovering: false)
        else { return nil }
        return candidate
    }
}
