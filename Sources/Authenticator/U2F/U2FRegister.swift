import CTAP

extension Authenticator {
    /// U2F_REGISTER (FIDO U2F Raw Message Formats §4). The key handle is a non-resident
    /// credential ID (ES256, sealed with the application parameter as its rpIdHash), so
    /// CTAP2 getAssertion accepts it too (CTAP 2.1 §10.2).
    func u2fRegister(_ request: U2FRegisterRequest) async throws(StatusWord) -> U2FResponse {
        // §4.2: registration always tests user presence.
        try await u2fPresence(UserActionRequest(purpose: .makeCredential))
        let wrappingKey = try await u2fDevice { () async throws(CTAPStatus) in try await deviceState().wrappingKey }
        let attestation = U2FAttestationIdentity.batch
        return try await u2fDevice { () async throws(CTAPStatus) -> U2FResponse in
            let key = try CredentialKey.generate(.es256)
            let keyHandle: [UInt8]
            if let kept = try await keptU2FCredential(key, application: request.application) {
                keyHandle = kept
            } else {
                keyHandle = try CredentialWrapping.wrap(
                    key, extensions: CredentialExtensionState(), rpIDHash: request.application, wrappingKey: wrappingKey
                )
            }
            // §4.3: the user public key as an uncompressed point (X9.62: 0x04 ‖ x ‖ y).
            guard case .p256(let x, let y, _) = try key.publicKey() else { throw .other }
            let publicKey = [0x04] + x + y
            let signed = U2FSignedData.registration(
                application: request.application, challenge: request.challenge, keyHandle: keyHandle,
                publicKey: publicKey)
            let signature: [UInt8]
            do { signature = try attestation.sign(signed) } catch { throw .other }
            logger.info("U2F credential registered")
            return .registration(
                publicKey: publicKey, keyHandle: keyHandle, attestationCertificate: attestation.certificate,
                signature: signature)
        }
    }

    /// The credential kept under a random key handle when the store keeps the non-discoverable
    /// credentials the device makes (the test controls' `keepNonDiscoverable`), so a test
    /// suite lists and removes it as Chrome's virtual U2F authenticator lets it; nil when the
    /// store keeps none, and the key is then sealed inside the key handle. 32 bytes, as
    /// Chrome's; scoped to the application parameter, the only name U2F gives the RP.
    private func keptU2FCredential(_ key: CredentialKey, application: [UInt8]) async throws(CTAPStatus) -> [UInt8]? {
        var source = CredentialSource(
            id: SecureRandom.bytes(32), rp: PublicKeyCredentialRpEntity(id: ""),
            user: PublicKeyCredentialUserEntity(id: []),
            algorithm: .es256, privateKey: key.rawRepresentation, extensions: CredentialExtensionState())
        source.application = application
        source.backup = configuration.backup
        do { return try await store.keepNonDiscoverable(source) ? source.id : nil } catch { throw storeFailure(error) }
    }
}
