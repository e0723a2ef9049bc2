import CTAP

extension Authenticator {
    /// authenticatorCredentialManagement (CTAP 2.1 §6.8), also answered under the
    /// CTAP 2.1-PRE command 0x41.
    func credentialManagement(_ request: CredentialManagementRequest) async throws(CTAPStatus) -> CredentialManagementResponse? {
        // An enumeration continues only through its own GetNext subcommand.
        let continues: Bool
        switch (request.subCommand, credentialEnumeration) {
        case (.enumerateRPsGetNextRP, .rps?), (.enumerateCredentialsGetNextCredential, .credentials?): continues = true
        default: continues = false
        }
        if !continues { credentialEnumeration = nil }

        // §6.8.1 steps 1–4 for every subcommand that begins something: pinUvAuthParam
        // (`CTAP2_ERR_PUAT_REQUIRED` when absent) over subCommand || subCommandParams,
        // with the cm permission.
        var token: PinUvAuthToken?
        if request.subCommand.isAuthenticated {
            guard let param = request.pinUvAuthParam else { throw .puatRequired }
            let version = try Self.pinUvAuthProtocol(request.pinUvAuthProtocol)
            var inUse = try tokenInUse()
            guard inUse.authProtocol == version else { throw .pinAuthInvalid }
            try version.implementation.verify(key: inUse.key, message: request.authenticatedMessage, signature: param)
            guard inUse.permissions.contains(.cm) else { throw .pinAuthInvalid }
            inUse.markUsed()
            pinUV.token = inUse
            token = inUse
        }

        switch request.subCommand {
        case .getCredsMetadata:
            try Self.requireUnbound(token)
            return try await credsMetadata()
        case .enumerateRPsBegin:
            try Self.requireUnbound(token)
            return try await enumerateRPsBegin()
        case .enumerateRPsGetNextRP:
            return try enumerateRPsGetNext()
        case .enumerateCredentialsBegin:
            guard let rpIDHash = request.subCommandParams?.rpIDHash else { throw .missingParameter }
            return try await enumerateCredentialsBegin(rpIDHash: rpIDHash, token: token)
        case .enumerateCredentialsGetNextCredential:
            return try enumerateCredentialsGetNext()
        case .deleteCredential:
            guard let id = request.subCommandParams?.credentialID?.id else { throw .missingParameter }
            let source = try await storedCredential(id, token: token)
            do { try await store.delete(credentialID: source.id) } catch { throw storeFailure(error) }
            logger.info("credential deleted through credential management")
            return nil
        case .updateUserInformation:
            guard let id = request.subCommandParams?.credentialID?.id, let user = request.subCommandParams?.user else {
                throw .missingParameter
            }
            let source = try await storedCredential(id, token: token)
            // §6.8.7: the user handle is the credential's identity and cannot change.
            guard user.id == source.user.id else { throw .invalidParameter }
            do { try await store.updateUser(credentialID: source.id, to: user) } catch { throw storeFailure(error) }
            logger.info("credential user information updated through credential management")
            return nil
        }
    }

    /// getCredsMetadata and enumerateRPsBegin see every RP, so a token bound to one
    /// RP may not run them (`CTAP2_ERR_PIN_AUTH_INVALID`, §6.8.2, §6.8.3).
    private static func requireUnbound(_ token: PinUvAuthToken?) throws(CTAPStatus) {
        if token?.rpID != nil { throw .pinAuthInvalid }
    }

    /// A token bound to an RP manages only that RP's credentials (§6.8.4–§6.8.7).
    private static func requireBinding(_ token: PinUvAuthToken?, allows rpID: String) throws(CTAPStatus) {
        if let bound = token?.rpID, bound != rpID { throw .pinAuthInvalid }
    }

    /// getCredsMetadata (§6.8.2): what is stored, and what room is left.
    private func credsMetadata() async throws(CTAPStatus) -> CredentialManagementResponse {
        let stored: Int
        do { stored = try await store.count() } catch { throw storeFailure(error) }
        return CredentialManagementResponse(
            existingResidentCredentialsCount: stored,
            maxPossibleRemainingResidentCredentialsCount: max(0, store.capacity - stored))
    }

    /// Every stored credential; `allCredentials()` is newest first.
    private func allResidentCredentials() async throws(CTAPStatus) -> [CredentialSource] {
        do { return try await store.allCredentials() } catch { throw storeFailure(error) }
    }

    /// enumerateRPsBegin (§6.8.3): RPs in RP ID order, each with the entity of its newest credential.
    private func enumerateRPsBegin() async throws(CTAPStatus) -> CredentialManagementResponse {
        var newestByRP: [String: PublicKeyCredentialRpEntity] = [:]
        for source in try await allResidentCredentials() where newestByRP[source.rp.id] == nil {
            newestByRP[source.rp.id] = source.rp
        }
        let rps = newestByRP.keys.sorted().compactMap { newestByRP[$0] }
        guard let first = rps.first else { throw .noCredentials }
        if rps.count > 1 {
            credentialEnumeration = .rps(remaining: Array(rps.dropFirst()), lastAnswerAt: configuration.now())
        }
        return CredentialManagementResponse(rp: first, rpIDHash: Self.sha256(Array(first.id.utf8)), totalRPs: rps.count)
    }

    /// enumerateRPsGetNextRP (§6.8.3): `CTAP2_ERR_NOT_ALLOWED` once there is nothing to continue.
    private func enumerateRPsGetNext() throws(CTAPStatus) -> CredentialManagementResponse {
        guard case .rps(var remaining, let at)? = credentialEnumeration, !remaining.isEmpty,
              configuration.now() - at <= configuration.enumerationStateLifetime else {
            credentialEnumeration = nil
            throw .notAllowed
        }
        let rp = remaining.removeFirst()
        credentialEnumeration = remaining.isEmpty ? nil : .rps(remaining: remaining, lastAnswerAt: configuration.now())
        return CredentialManagementResponse(rp: rp, rpIDHash: Self.sha256(Array(rp.id.utf8)))
    }

    /// enumerateCredentialsBegin (§6.8.4): the RP's credentials, newest first.
    private func enumerateCredentialsBegin(rpIDHash: [UInt8], token: PinUvAuthToken?) async throws(CTAPStatus) -> CredentialManagementResponse {
        let credentials = try await allResidentCredentials().filter { Self.sha256(Array($0.rp.id.utf8)) == rpIDHash }
        if let bound = token?.rpID, Self.sha256(Array(bound.utf8)) != rpIDHash { throw .pinAuthInvalid }
        guard let first = credentials.first else { throw .noCredentials }
        if credentials.count > 1 {
            credentialEnumeration = .credentials(remaining: Array(credentials.dropFirst()), lastAnswerAt: configuration.now())
        }
        var response = try Self.describe(first)
        response.totalCredentials = credentials.count
        return response
    }

    /// enumerateCredentialsGetNextCredential (§6.8.5).
    private func enumerateCredentialsGetNext() throws(CTAPStatus) -> CredentialManagementResponse {
        guard case .credentials(var remaining, let at)? = credentialEnumeration, !remaining.isEmpty,
              configuration.now() - at <= configuration.enumerationStateLifetime else {
            credentialEnumeration = nil
            throw .notAllowed
        }
        let source = remaining.removeFirst()
        credentialEnumeration = remaining.isEmpty ? nil : .credentials(remaining: remaining, lastAnswerAt: configuration.now())
        return try Self.describe(source)
    }

    /// One credential as the enumeration reports it: user, credential ID, public key, credProtect.
    private static func describe(_ source: CredentialSource) throws(CTAPStatus) -> CredentialManagementResponse {
        CredentialManagementResponse(
            user: source.user,
            credentialID: PublicKeyCredentialDescriptor(id: source.id),
            publicKey: try CredentialKey(algorithm: source.algorithm, rawRepresentation: source.privateKey).publicKey(),
            credProtect: Int(source.credProtect))
    }

    /// The stored credential a delete or update names: `CTAP2_ERR_NO_CREDENTIALS` if
    /// there is none, `CTAP2_ERR_PIN_AUTH_INVALID` if the token is bound to another RP.
    private func storedCredential(_ id: [UInt8], token: PinUvAuthToken?) async throws(CTAPStatus) -> CredentialSource {
        let found: CredentialSource?
        do { found = try await store.credential(id: id) } catch { throw storeFailure(error) }
        guard let found else { throw .noCredentials }
        try Self.requireBinding(token, allows: found.rp.id)
        return found
    }
}
