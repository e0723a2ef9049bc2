import CBOR
import CTAP

extension Authenticator {
    /// A credential that can answer an assertion: stored, or carried inside its ID.
    struct AssertionCandidate: Sendable {
        let id: [UInt8]
        let key: CredentialKey
        /// The stored record; nil for a non-resident credential.
        let resident: CredentialSource?
        let extensions: CredentialExtensionState
    }

    /// authenticatorGetAssertion (CTAP 2.1 §6.2.2); step numbers refer to that section.
    /// Returns the first assertion and, when discovery found more, what
    /// authenticatorGetNextAssertion continues with.
    func getAssertion(_ request: GetAssertionRequest) async throws(CTAPStatus) -> (
        GetAssertionResponse, PendingAssertions?
    ) {
        let purpose = UserActionRequest(purpose: .getAssertion, rpID: request.rpID)
        // Steps 1–2: pinUvAuthParam probe and protocol check.
        let tokenProtocol = try await pinUvAuthProtocol(
            for: request.pinUvAuthParam, request.pinUvAuthProtocol, probe: purpose)
        // Step 5: options. `rk` has no meaning here; `up` defaults to true. A pinUvAuthParam
        // takes precedence over `uv`, which otherwise needs a built-in method.
        if request.options.rk != nil { throw configuration.rules.rkInGetAssertion }
        var requestsUV = request.options.uv == true && tokenProtocol == nil
        if requestsUV, !(try await builtInUVConfigured()) { throw configuration.rules.uvWithoutBuiltInUV }
        let wantsPresence = request.options.up ?? true
        // alwaysUv governs assertions the user takes part in; a silent one (`up` false) only
        // tells the platform which credentials exist.
        if wantsPresence {
            requestsUV = try await applyingAlwaysUv(requestsUV: requestsUV, tokenProtocol: tokenProtocol)
        }
        // The inputs of the extensions this device offers (CTAP 2.1 §12), parsed before any effect.
        let extensions = try configuration.extensions.getAssertion(request.extensions)
        let returnsLargeBlobKey = try configuration.extensions.asks(LargeBlobKey.self, in: request.extensions)

        // Step 6.1: the token with its ga permission and RP ID; step 7: the built-in method,
        // which also establishes presence.
        let (userVerified, present) = try await verifyUser(
            pinUvAuthParam: request.pinUvAuthParam, protocol: tokenProtocol, requestsUV: requestsUV,
            clientDataHash: request.clientDataHash, permission: .ga, rpID: request.rpID, purpose: purpose,
            wantsPresence: wantsPresence)
        var userPresent = present

        // Steps 8–9: the applicable credentials, newest first when discovering.
        let rpIDHash = Self.sha256(Array(request.rpID.utf8))
        let discovering = request.allowList.isEmpty
        var candidates = try await locateCredentials(request, rpIDHash: rpIDHash)
        // CTAP 2.1 §12.1: credProtect hides credentials from requests without UV.
        candidates.removeAll {
            !$0.extensions[CredProtectExtension.stored].permits(userVerified: userVerified, discovering: discovering)
        }
        guard let first = candidates.first else { throw .noCredentials }

        // Step 10: user presence unless the platform asked for a silent assertion.
        if wantsPresence, !userPresent {
            // The prompt names the account when only one credential can answer; with several,
            // the platform chooses afterwards (step 12), so none is named.
            var asked = purpose
            if candidates.count == 1 { asked.account = first.resident?.user.name }
            try await collectPresence(asked)
            userPresent = true
        }
        // A token that took part in a request with presence cannot authorise another.
        if wantsPresence, tokenProtocol != nil { consumeTokenAfterPresence() }
        var flags: AuthenticatorData.Flags = []
        if userPresent { flags.insert(.userPresent) }
        if userVerified { flags.insert(.userVerified) }

        // Step 12: with an allowList one credential answers; discovery reports how many exist.
        let others = discovering ? candidates.dropFirst().compactMap(\.resident?.id) : []
        let pending =
            others.isEmpty
            ? nil
            : PendingAssertions(
                remaining: others, rpID: request.rpID, rpIDHash: rpIDHash, clientDataHash: request.clientDataHash,
                flags: flags, extensions: extensions, returnsLargeBlobKey: returnsLargeBlobKey,
                lastAnswerAt: configuration.now())
        let response = try await sign(
            first, rpIDHash: rpIDHash, clientDataHash: request.clientDataHash, flags: flags, extensions: extensions,
            returnsLargeBlobKey: returnsLargeBlobKey, discovering: discovering,
            numberOfCredentials: others.isEmpty ? nil : candidates.count)
        return (response, pending)
    }

    /// authenticatorGetNextAssertion (CTAP 2.1 §6.3): the next of the caller's pending
    /// credentials, read afresh so its key is unsealed only to sign and its counter is
    /// current. One deleted meanwhile (by another caller) is skipped.
    func getNextAssertion(_ pending: inout PendingAssertions) async throws(CTAPStatus) -> GetAssertionResponse {
        while !pending.remaining.isEmpty {
            let id = pending.remaining.removeFirst()
            let stored: CredentialSource?
            do { stored = try await store.credential(id: id) } catch { throw storeFailure(error) }
            guard let source = stored, source.rp.id == pending.rpID else { continue }
            pending.lastAnswerAt = configuration.now()
            return try await sign(
                Self.candidate(for: source), rpIDHash: pending.rpIDHash, clientDataHash: pending.clientDataHash,
                flags: pending.flags, extensions: pending.extensions, returnsLargeBlobKey: pending.returnsLargeBlobKey,
                discovering: true, numberOfCredentials: nil)
        }
        throw .notAllowed
    }

    private func locateCredentials(_ request: GetAssertionRequest, rpIDHash: [UInt8]) async throws(CTAPStatus)
        -> [AssertionCandidate]
    {
        if request.allowList.isEmpty {
            do { return try await store.credentials(rpID: request.rpID).map(Self.candidate(for:)) } catch {
                throw storeFailure(error)
            }
        }
        let wrappingKey = try await deviceState().wrappingKey
        var found: [AssertionCandidate] = []
        for descriptor in request.allowList where descriptor.type == "public-key" {
            if let unwrapped = CredentialWrapping.unwrap(descriptor.id, rpIDHash: rpIDHash, wrappingKey: wrappingKey) {
                found.append(
                    AssertionCandidate(
                        id: descriptor.id, key: unwrapped.key, resident: nil, extensions: unwrapped.extensions))
                continue
            }
            let stored: CredentialSource?
            do { stored = try await store.credential(id: descriptor.id) } catch { throw storeFailure(error) }
            if let source = stored, source.isScoped(to: request.rpID) { found.append(Self.candidate(for: source)) }
        }
        return found
    }

    static func candidate(for source: CredentialSource) -> AssertionCandidate {
        AssertionCandidate(
            id: source.id, key: CredentialKey(algorithm: source.algorithm, rawRepresentation: source.privateKey),
            resident: source, extensions: source.extensions)
    }

    /// Advances the credential's signature counter (durable up to its lease) and signs authData ‖ clientDataHash.
    private func sign(
        _ candidate: AssertionCandidate, rpIDHash: [UInt8], clientDataHash: [UInt8], flags: AuthenticatorData.Flags,
        extensions: [PreparedAssertionExtension], returnsLargeBlobKey: Bool, discovering: Bool,
        numberOfCredentials: Int?
    ) async throws(CTAPStatus) -> GetAssertionResponse {
        // Step 11: each extension's output for this credential.
        var outputs: [(identifier: String, value: CBORValue)?] = []
        if !extensions.isEmpty {
            let context = ExtensionContext(
                credentialID: candidate.id, credential: candidate.extensions,
                userVerified: flags.contains(.userVerified),
                keyAgreements: pinUV.keyAgreements, wrappingKey: try await deviceState().wrappingKey,
                rpIDHash: rpIDHash, userPresent: flags.contains(.userPresent), discovering: discovering)
            for prepared in extensions { outputs.append(try await prepared.output(context)) }
        }
        let signCount = try await nextSignCount(for: candidate)
        // BE/BS as the credential was made with; non-resident credentials follow the device.
        let backup = candidate.resident.map { $0.backup ?? .singleDevice } ?? configuration.backup
        let flags = flags.union(backup.authenticatorDataFlags)
        // A test's faults change what is reported and signed, never what is stored.
        let faults = Self.faults
        let authData = AuthenticatorData(
            rpIDHash: rpIDHash, flags: faults.reported(flags), signCount: faults.reported(signCount: signCount),
            extensions: outputs.authenticatorDataExtensions
        ).bytes
        let signature = faults.reported(signature: try candidate.key.sign(authData + clientDataHash))
        // Response member `user` (CTAP 2.1 §6.2.2): names only when the user was verified; none
        // for a credential without a user handle (a non-discoverable import, NonDiscoverableCredentials).
        let user = candidate.resident.flatMap { source in source.user.id.isEmpty ? nil : source }.map { source in
            flags.contains(.userVerified)
                ? source.user
                : PublicKeyCredentialUserEntity(id: source.user.id)
        }
        return GetAssertionResponse(
            credential: PublicKeyCredentialDescriptor(id: candidate.id), authenticatorData: authData,
            signature: signature, user: user, numberOfCredentials: numberOfCredentials,
            largeBlobKey: returnsLargeBlobKey ? candidate.extensions[LargeBlobKeyExtension.stored] : nil)
    }

    /// Resident credentials count on their own; non-resident ones share the device counter
    /// (`--counter global`: every credential shares it; `zero`: nothing counts).
    /// Both are leased (`SignatureCounterLease`): a count within the durable mark costs no
    /// write, and one past it stores the next mark before it signs.
    /// The record was read by this command, which holds the turn, so its mark is current.
    /// `counter-freeze` repeats the last count: the one last issued, or after a start the stored
    /// mark (the last count after a clean shutdown; after a crash, a mark above it).
    func nextSignCount(for candidate: AssertionCandidate) async throws(CTAPStatus) -> UInt32 {
        if configuration.signatureCounter == .zero || candidate.resident?.countsSignatures == false { return 0 }
        if configuration.signatureCounter == .perCredential, let resident = candidate.resident {
            if Self.faults.freezesCounter { return counterLeases.resident[resident.id]?.issued ?? resident.signCount }
            let step = SignatureCounterLease.advance(
                counterLeases.resident[resident.id], storedMark: resident.signCount)
            if let mark = step.newMark {
                do { try await store.updateSignCount(credentialID: resident.id, to: mark) } catch {
                    throw storeFailure(error)
                }
            }
            counterLeases.keep(step.lease, for: resident.id)
            return step.count
        }
        let stored = try await deviceState().globalSignCount
        if Self.faults.freezesCounter { return counterLeases.global?.issued ?? stored }
        let step = SignatureCounterLease.advance(counterLeases.global, storedMark: stored)
        if let mark = step.newMark {
            try await updateDeviceState { state in state.globalSignCount = max(state.globalSignCount, mark) }
        }
        counterLeases.global = step.lease
        return step.count
    }
}
