import CTAP

extension Authenticator {
    /// authenticatorCredentialManagement (CTAP 2.1 §6.8), also answered under the
    /// CTAP 2.1-PRE command 0x41 (`preview`). `enumeration` is the caller's enumeration in
    /// progress; on return, the one its next GetNext continues, if any.
    func credentialManagement(
        _ request: CredentialManagementRequest, preview: Bool = false,
        continuing enumeration: inout CredentialEnumeration?
    ) async throws(CTAPStatus) -> CredentialManagementResponse? {
        // A subcommand this version lacks is unknown to it (updateUserInformation in the review draft).
        if configuration.rules.withheldCredentialManagementSubcommands.contains(request.subCommand) {
            throw .invalidSubcommand
        }
        // An enumeration continues only through GetNext; every other subcommand begins
        // something (and is authenticated), which ends it.
        var token: PinUvAuthTokenState?
        if request.subCommand.isAuthenticated {
            enumeration = nil
            // §6.8.1 steps 1–4: pinUvAuthParam (`CTAP2_ERR_PUAT_REQUIRED` when absent) over
            // subCommand || subCommandParams, with the cm permission.
            guard let param = request.pinUvAuthParam else { throw .puatRequired }
            // A CTAP 2.1-PRE platform has only getPinToken's token, so the preview command
            // takes it; 0x0A keeps requiring cm.
            let version = try pinUvAuthProtocol(request.pinUvAuthProtocol)
            do throws(CTAPStatus) {
                token = try authorize(
                    param, protocol: version, message: request.authenticatedMessage, permission: .cm,
                    legacyAllowed: preview)
            } catch {
                // CTAP 2.2 §6.8: the persistent token (pcmr) reads, unbound to any RP, and changes nothing.
                guard request.subCommand.isReadOnly, let persistent = try await deviceState().persistentToken else {
                    throw error
                }
                try persistent.verify(param, protocol: version, message: request.authenticatedMessage)
            }
        }

        switch request.subCommand {
        case .getCredsMetadata:
            try Self.requireUnbound(token)
            return try await credsMetadata()
        case .enumerateRPsBegin:
            try Self.requireUnbound(token)
            return try await enumerateRPsBegin(&enumeration)
        case .enumerateRPsGetNextRP:
            return try nextEnumerated(.relyingParties, &enumeration)
        case .enumerateCredentialsBegin:
            guard let rpIDHash = request.subCommandParams?.rpIDHash else { throw .missingParameter }
            return try await enumerateCredentialsBegin(rpIDHash: rpIDHash, token: token, &enumeration)
        case .enumerateCredentialsGetNextCredential:
            return try nextEnumerated(.credentials, &enumeration)
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
            // §6.8.7: the user handle is the credential's identity and cannot change; a name
            // or display name that is absent or empty is removed.
            guard user.id == source.user.id else { throw .invalidParameter }
            var updated = user
            updated.name = user.name.flatMap { $0.isEmpty ? nil : $0 }
            updated.displayName = user.displayName.flatMap { $0.isEmpty ? nil : $0 }
            do { try await store.updateUser(credentialID: source.id, to: updated) } catch { throw storeFailure(error) }
            logger.info("credential user information updated through credential management")
            return nil
        }
    }

    /// getCredsMetadata and enumerateRPsBegin see every RP, so a token bound to one
    /// RP may not run them (`CTAP2_ERR_PIN_AUTH_INVALID`, §6.8.2, §6.8.3).
    private static func requireUnbound(_ token: PinUvAuthTokenState?) throws(CTAPStatus) {
        if token?.rpID != nil { throw .pinAuthInvalid }
    }

    /// A token bound to an RP manages only that RP's credentials (§6.8.4–§6.8.7).
    private static func requireBinding(_ token: PinUvAuthTokenState?, allows rpID: String) throws(CTAPStatus) {
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

    /// enumerateRPsBegin (§6.8.3): RPs in RP ID order, each with the entity of its newest credential.
    private func enumerateRPsBegin(_ enumeration: inout CredentialEnumeration?) async throws(CTAPStatus)
        -> CredentialManagementResponse
    {
        let all: [CredentialSource]
        do { all = try await store.allCredentials() } catch { throw storeFailure(error) }
        var newestByRP: [String: PublicKeyCredentialRpEntity] = [:]
        for source in all where newestByRP[source.rp.id] == nil {
            newestByRP[source.rp.id] = source.rp
        }
        let answers = newestByRP.keys.sorted().compactMap { newestByRP[$0] }.map { rp in
            CredentialManagementResponse(rp: rp, rpIDHash: Self.sha256(Array(rp.id.utf8)))
        }
        return try beginEnumeration(.relyingParties, answers, &enumeration) { $0.totalRPs = answers.count }
    }

    /// enumerateCredentialsBegin (§6.8.4): the RP's credentials, newest first. A token bound
    /// to an RP is checked before anything is read, and its RP is found by the store's index.
    private func enumerateCredentialsBegin(
        rpIDHash: [UInt8], token: PinUvAuthTokenState?,
        _ enumeration: inout CredentialEnumeration?
    ) async throws(CTAPStatus) -> CredentialManagementResponse {
        if let bound = token?.rpID, Self.sha256(Array(bound.utf8)) != rpIDHash { throw .pinAuthInvalid }
        let credentials: [CredentialSource]
        do {
            if let bound = token?.rpID {
                credentials = try await store.credentials(rpID: bound)
            } else {
                credentials = try await store.allCredentials().filter { Self.sha256(Array($0.rp.id.utf8)) == rpIDHash }
            }
        } catch {
            throw storeFailure(error)
        }
        let answers = try credentials.map(Self.describe)
        return try beginEnumeration(.credentials, answers, &enumeration) { $0.totalCredentials = answers.count }
    }

    /// Answers the first item, totals included, and keeps the rest for GetNext.
    private func beginEnumeration(
        _ kind: CredentialEnumeration.Kind, _ answers: [CredentialManagementResponse],
        _ enumeration: inout CredentialEnumeration?,
        total: (inout CredentialManagementResponse) -> Void
    ) throws(CTAPStatus) -> CredentialManagementResponse {
        guard var first = answers.first else { throw .noCredentials }
        total(&first)
        if answers.count > 1 {
            enumeration = CredentialEnumeration(
                kind: kind, remaining: Array(answers.dropFirst()), lastAnswerAt: configuration.now())
        }
        return first
    }

    /// enumerateRPsGetNextRP (§6.8.3), enumerateCredentialsGetNextCredential (§6.8.5):
    /// `CTAP2_ERR_NOT_ALLOWED` once there is nothing of that kind to continue.
    private func nextEnumerated(
        _ kind: CredentialEnumeration.Kind,
        _ enumeration: inout CredentialEnumeration?
    ) throws(CTAPStatus) -> CredentialManagementResponse {
        guard var current = enumeration, current.kind == kind else {
            enumeration = nil
            throw .notAllowed
        }
        let next = current.remaining.removeFirst()
        current.lastAnswerAt = configuration.now()
        enumeration = current.remaining.isEmpty ? nil : current
        return next
    }

    /// One credential as the enumeration reports it: user, credential ID, public key, credProtect,
    /// largeBlobKey (§6.8.4), thirdPartyPayment (CTAP 2.2 §6.8.4).
    private static func describe(_ source: CredentialSource) throws(CTAPStatus) -> CredentialManagementResponse {
        CredentialManagementResponse(
            user: source.user,
            credentialID: PublicKeyCredentialDescriptor(id: source.id),
            publicKey: try CredentialKey(algorithm: source.algorithm, rawRepresentation: source.privateKey).publicKey(),
            credProtect: Int(source.credProtect), largeBlobKey: source.largeBlobKey,
            thirdPartyPayment: source.thirdPartyPayment == true)
    }

    /// The stored credential a delete or update names: `CTAP2_ERR_NO_CREDENTIALS` if
    /// there is none, `CTAP2_ERR_PIN_AUTH_INVALID` if the token is bound to another RP.
    private func storedCredential(_ id: [UInt8], token: PinUvAuthTokenState?) async throws(CTAPStatus)
        -> CredentialSource
    {
        let found: CredentialSource?
        do { found = try await store.credential(id: id) } catch { throw storeFailure(error) }
        guard let found else { throw .noCredentials }
        try Self.requireBinding(token, allows: found.rp.id)
        return found
    }
}
