import CBOR
import CTAP
import Foundation

extension Authenticator {
    /// authenticatorMakeCredential (CTAP 2.1 §6.1.2); step numbers refer to that section.
    func makeCredential(_ request: MakeCredentialRequest) async throws(CTAPStatus) -> MakeCredentialResponse {
        let purpose = UserActionRequest(purpose: .makeCredential, rpID: request.rp.id, account: request.user.name)
        // Steps 1–2: pinUvAuthParam probe and protocol check.
        let tokenProtocol = try await pinUvAuthProtocol(
            for: request.pinUvAuthParam, request.pinUvAuthProtocol, probe: purpose)
        // Step 3: every element is validated by parsing; the first supported algorithm wins.
        guard
            let algorithm = request.pubKeyCredParams.lazy
                .filter({ $0.type == "public-key" })
                .compactMap({ COSEAlgorithm(rawValue: $0.alg) })
                .first(where: { self.configuration.algorithms.contains($0) })
        else { throw .unsupportedAlgorithm }
        // The inputs of the extensions this device offers (CTAP 2.1 §12), parsed before any effect.
        let extensions = try configuration.extensions.makeCredential(request.extensions)
        // Step 5: options. `up` must not be false here. A pinUvAuthParam takes precedence
        // over `uv`, which is then ignored; otherwise `uv` needs a built-in method.
        if request.options.up == false { throw .invalidOption }
        var requestsUV = request.options.uv == true && tokenProtocol == nil
        if requestsUV, !(try await builtInUVConfigured()) { throw configuration.rules.uvWithoutBuiltInUV }
        requestsUV = try await applyingAlwaysUv(requestsUV: requestsUV, tokenProtocol: tokenProtocol)
        let residentKey = request.options.rk ?? false
        // Step 5: rk on a device whose getInfo says `rk: false` (`--no-resident-keys`).
        if residentKey, !configuration.profile.residentKeys { throw .unsupportedOption }
        // Step 9: enterprise attestation (§7.1).
        let enterprise = try await enterpriseAttestation(for: request)
        if !requestsUV, tokenProtocol == nil {
            switch configuration.rules.protectedMakeCredential {
            case .uvNotRequiredForNonDiscoverable:
                // Step 11: a protected device creates discoverable credentials only with user
                // verification (makeCredUvNotRqd lets non-discoverable ones through).
                if residentKey, try await isProtectedByUV() { throw .puatRequired }
            case .pinRequired:
                // CTAP 2.0 §5.1 step 6: once a PIN is set, every credential needs it
                // (CTAP2_ERR_PIN_REQUIRED, the code 2.1 calls PUAT_REQUIRED).
                if try await deviceState().pinHash != nil { throw .puatRequired }
            }
        }
        // Step 11.1: the token with its mc permission and RP ID, else the built-in method;
        // step 14.1: the presence either already carries.
        let (userVerified, present) = try await verifyUser(
            pinUvAuthParam: request.pinUvAuthParam, protocol: tokenProtocol, requestsUV: requestsUV,
            clientDataHash: request.clientDataHash, permission: .mc, rpID: request.rp.id, purpose: purpose,
            wantsPresence: true)
        var userPresent = present

        let rpIDHash = Self.sha256(Array(request.rp.id.utf8))
        let state = try await deviceState()
        // Step 12: a credential of ours in excludeList ends the request after presence.
        for descriptor in request.excludeList where descriptor.type == "public-key" {
            guard
                let credProtect = try await credentialProtection(
                    of: descriptor.id, rpID: request.rp.id, rpIDHash: rpIDHash, wrappingKey: state.wrappingKey),
                credProtect.permits(userVerified: userVerified, discovering: false)
            else { continue }
            if !userPresent {
                let outcome = await askPresence(UserActionRequest(purpose: .credentialExcluded, rpID: request.rp.id))
                if outcome == .cancelled || Task.isCancelled { throw .keepaliveCancel }
            }
            throw .credentialExcluded
        }
        // Step 14: user presence; a token that took part cannot authorise another request (step 14.3).
        if !userPresent {
            try await collectPresence(purpose)
            userPresent = true
        }
        if tokenProtocol != nil { consumeTokenAfterPresence() }

        // Steps 16–17: the key pair, what extensions keep with it, and its credential ID.
        var extensionState = CredentialExtensionState()
        let creation = CredentialCreation(userVerified: userVerified, residentKey: residentKey)
        for prepared in extensions { try prepared.record(&extensionState, creation) }
        let key = try await CredentialKey.generating(algorithm)
        let credentialID: [UInt8]
        if residentKey {
            credentialID = SecureRandom.bytes(32)
            var source = CredentialSource(
                id: credentialID, rp: request.rp, user: request.user, algorithm: algorithm,
                privateKey: key.rawRepresentation, signCount: 0, createdAt: Date(), extensions: extensionState)
            source.backup = configuration.backup
            try await saveResident(source)
        } else if let kept = try await keptNonDiscoverable(
            request, algorithm: algorithm, key: key, extensions: extensionState)
        {
            credentialID = kept
        } else {
            credentialID = try CredentialWrapping.wrap(
                key, extensions: extensionState, rpIDHash: rpIDHash, wrappingKey: state.wrappingKey)
        }

        // Step 19: authenticator data with attested credential data and extension outputs.
        let context = ExtensionContext(
            credentialID: credentialID, credential: extensionState, userVerified: userVerified,
            keyAgreements: pinUV.keyAgreements, wrappingKey: state.wrappingKey,
            minPINLengthForRP: state.minPinLengthRPIDs?.contains(request.rp.id) == true ? state.minPINLength : nil,
            rpIDHash: rpIDHash, aaguid: configuration.aaguid)
        var outputs: [CreationOutputs] = []
        for prepared in extensions { outputs.append(try await prepared.output(context)) }
        var flags: AuthenticatorData.Flags = [.userPresent]
        if userVerified { flags.insert(.userVerified) }
        flags.formUnion(configuration.backup.authenticatorDataFlags)
        // A test's faults change what is reported and signed, never what is stored.
        let faults = Self.faults
        let authData = AuthenticatorData(
            rpIDHash: rpIDHash, flags: faults.reported(flags), signCount: 0,
            attestedCredentialData: AttestedCredentialData(
                aaguid: configuration.aaguid, credentialID: credentialID, publicKey: try key.publicKey()),
            extensions: outputs.map(\.signed).authenticatorDataExtensions)
        let authDataBytes = authData.bytes

        let statement = try await attestationStatement(
            authenticatorData: authDataBytes, clientDataHash: request.clientDataHash, key: key,
            preferredFormat: request.attestationFormatsPreference?.first, enterprise: enterprise)
        logger.info("credential created", metadata: ["resident": "\(residentKey)", "alg": "\(algorithm.rawValue)"])
        return MakeCredentialResponse(
            attestation: AttestationObject(authenticatorData: authDataBytes, statement: statement),
            enterpriseAttestation: enterprise ? true : nil,
            largeBlobKey: extensionState[LargeBlobKeyExtension.stored],
            unsignedExtensionOutputs: outputs.compactMap(\.unsigned).extensionMap)
    }

    /// Stores a discoverable credential; the store itself refuses with `keyStoreFull`
    /// unless the credential replaces one, in the same atomic write.
    private func saveResident(_ source: CredentialSource) async throws(CTAPStatus) {
        do { try await store.save(source) } catch { throw storeFailure(error) }
    }

    /// Step 17's non-discoverable credential stored client-side (WebAuthn L3 §6.2.2), under a
    /// random ID, when the store keeps such credentials (`CredentialStore.keepNonDiscoverable`);
    /// nil when it keeps none, and the key is then sealed inside the ID (server-side).
    private func keptNonDiscoverable(
        _ request: MakeCredentialRequest, algorithm: COSEAlgorithm, key: CredentialKey,
        extensions: CredentialExtensionState
    ) async throws(CTAPStatus) -> [UInt8]? {
        var source = CredentialSource(
            id: SecureRandom.bytes(32), rp: request.rp, user: request.user, algorithm: algorithm,
            privateKey: key.rawRepresentation, signCount: 0, createdAt: Date(), extensions: extensions)
        // BE/BS as a non-resident credential reports them: the device's.
        source.backup = configuration.backup
        do { return try await store.keepNonDiscoverable(source) ? source.id : nil } catch { throw storeFailure(error) }
    }

    /// The credProtect level of a credential ID if it is one of ours for this RP.
    func credentialProtection(of credentialID: [UInt8], rpID: String, rpIDHash: [UInt8], wrappingKey: [UInt8])
        async throws(CTAPStatus) -> CredentialProtection?
    {
        if let unwrapped = CredentialWrapping.unwrap(credentialID, rpIDHash: rpIDHash, wrappingKey: wrappingKey) {
            return unwrapped.extensions[CredProtectExtension.stored]
        }
        let resident: CredentialSource?
        do { resident = try await store.credential(id: credentialID) } catch { throw storeFailure(error) }
        guard let resident, resident.isScoped(to: rpID) else { return nil }
        return resident.extensions[CredProtectExtension.stored]
    }
}
