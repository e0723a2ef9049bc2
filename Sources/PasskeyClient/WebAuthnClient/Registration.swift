import CTAP
import WebAuthn

extension WebAuthnClient {
    /// navigator.credentials.create() (WebAuthn L3 §5.1.3); step numbers refer to that section.
    public func create(_ options: PublicKeyCredentialCreationOptionsJSON) async throws(WebAuthnError)
        -> RegistrationResponseJSON
    {
        // Step 5: user.id is 1 to 64 bytes.
        guard (1...64).contains(options.user.id.count) else {
            throw .init(.type, "user.id must be between 1 and 64 bytes.")
        }
        // Step 8: the RP ID must be valid for this origin.
        let rpID = try rpIDPolicy.validate(rpID: options.rp.id, origin: origin)
        // Step 10: with no parameters, ES256 and RS256; unknown types are skipped.
        let parameters =
            options.pubKeyCredParams.isEmpty
            ? [.init(alg: COSEAlgorithm.es256.rawValue), .init(alg: -257)]
            : options.pubKeyCredParams.filter { $0.type == "public-key" }.map(\.ctap)
        guard !parameters.isEmpty else { throw .notSupported("None of the requested credential types is supported.") }
        let selection = options.authenticatorSelection ?? AuthenticatorSelectionCriteria()
        _ = try CredentialProtection.policy(options.extensions, selection: selection)
        let consent = Consent.registration(
            rpID: rpID, userName: options.user.name, displayName: options.user.displayName)
        guard await userAgent.approve(consent) else {
            throw .notAllowed("Creating the passkey was declined.")
        }
        let (clientDataJSON, clientDataHash) = clientData(.create, challenge: options.challenge)

        return try await withCeremonyTimeout(options.timeout, rpID: rpID) {
            () async throws(WebAuthnError) -> RegistrationResponseJSON in
            let session = makeSession()
            let info: GetInfoResponse
            switch try await authenticatorProtocol(session, rpID: rpID) {
            case .ctap2(let reported): info = reported
            case .ctap1:
                return try await createOverCTAP1(
                    options, rpID: rpID, parameters: parameters, selection: selection,
                    clientDataJSON: clientDataJSON, clientDataHash: clientDataHash)
            }
            // §6.2.2 (authenticator selection): a required resident key needs an authenticator that
            // has them. Chromium finds no suitable authenticator among those present and the request
            // ends in NotAllowedError, which tells the page no more than any other refusal.
            let residentKey: Bool
            switch selection.effectiveResidentKey {
            case .required:
                guard info.options["rk"] == true else { throw .notAllowed("This authenticator cannot store passkeys.") }
                residentKey = true
            case .preferred: residentKey = info.options["rk"] == true
            case .discouraged: residentKey = false
            }
            let protection = try CredentialProtection.requested(options.extensions, selection: selection, info: info)
            let wantsLargeBlob = try largeBlobSupport(
                options.extensions?.largeBlob, info: info, residentKey: residentKey)
            let protected = info.options["uv"] == true || info.options["clientPin"] == true
            let verification = try await planUserVerification(
                selection.userVerification, info: info, session: session, permissions: .makeCredential,
                rpID: rpID, mustVerify: residentKey && protected)

            var request = MakeCredentialRequest(
                clientDataHash: clientDataHash, rp: options.rp.ctap(rpID: rpID), user: options.user.ctap,
                pubKeyCredParams: parameters,
                excludeList: options.excludeCredentials.filter { $0.type == "public-key" }.map(\.ctap),
                options: RequestOptions(rk: residentKey ? true : nil, uv: verification.usesBuiltIn ? true : nil),
                attestationFormatsPreference: options.attestation == .none
                    ? nil : (options.attestationFormats.isEmpty ? nil : options.attestationFormats))
            // largeBlob (WebAuthn L3 §10.1.5): a discoverable credential gets a largeBlobKey (CTAP 2.1 §12.3).
            if wantsLargeBlob { request.extensions.setMakeCredentialInput(LargeBlobKey.self, true) }
            // prf (WebAuthn L3 §10.1.4) at creation enables hmac-secret on the credential.
            // So does hmacCreateSecret (CTAP 2.1 §12.5), the same authenticator extension by its CTAP name.
            let hasHMACSecret = info.extensions.contains(HMACSecret.identifier)
            let wantsPRF = options.extensions?.prf != nil && hasHMACSecret
            let wantsHMACSecret = options.extensions?.hmacCreateSecret == true && hasHMACSecret
            if wantsPRF || wantsHMACSecret { request.extensions.setMakeCredentialInput(HMACSecret.self, true) }
            if let protection { request.extensions.setMakeCredentialInput(CredProtect.self, protection) }
            // credBlob (CTAP 2.1 §12.2): sent only when the authenticator has it and the blob fits
            // its maxCredBlobLength; otherwise the output says it was not stored.
            let credBlob = options.extensions?.credBlob.flatMap { blob in
                info.extensions.contains(CredBlob.identifier) && blob.count <= (info.maxCredBlobLength ?? 0)
                    ? blob : nil
            }
            if let credBlob { request.extensions.setMakeCredentialInput(CredBlob.self, credBlob) }
            if case .token(let token) = verification {
                request.pinUvAuthParam = token.authenticate(clientDataHash)
                request.pinUvAuthProtocol = token.protocolVersion
            }
            let response = try await call(rpID) { () async throws(CTAP2Error) in
                try await session.makeCredential(request)
            }
            loggers.authentication.info("passkey created", metadata: ["rp": "\(rpID)", "resident": "\(residentKey)"])

            // Step 20 (attestation conveyance "none"): browsers replace the statement with `none`.
            var attestation = response.attestation
            if options.attestation == .none || options.attestation == .indirect { attestation.statement = .none }
            var outputs = AuthenticationExtensionsClientOutputsJSON()
            if options.extensions?.credProps == true { outputs.credProps = .init(rk: residentKey) }
            if options.extensions?.largeBlob != nil {
                outputs.largeBlob = .init(supported: wantsLargeBlob && response.largeBlobKey != nil)
            }
            let authenticatorOutputs = try? AuthenticatorData(bytes: response.attestation.authenticatorData)
                .extensionOutputs()
            let enabled = (try? authenticatorOutputs?.makeCredentialOutput(HMACSecret.self)) == true
            if options.extensions?.prf != nil {
                outputs.prf = AuthenticationExtensionsPRFOutputsJSON(enabled: wantsPRF && enabled)
            }
            if options.extensions?.hmacCreateSecret == true { outputs.hmacCreateSecret = wantsHMACSecret && enabled }
            if options.extensions?.credBlob != nil {
                let stored = (try? authenticatorOutputs?.makeCredentialOutput(CredBlob.self)) == true
                outputs.credBlob = credBlob != nil && stored
            }
            do throws(CTAPStatus) {
                return try RegistrationResponseJSON(
                    clientDataJSON: clientDataJSON, attestationObject: attestation,
                    transports: Attachment(info).transports,
                    authenticatorAttachment: Attachment(info).attachment, clientExtensionResults: outputs)
            } catch {
                throw .unknown("The authenticator's attestation object is malformed.", cause: .ctap(error))
            }
        }
    }

    /// §10.1.5 client extension processing (registration): read and write belong to
    /// authentication; `required` fails where no large blob can be stored (an authenticator
    /// without largeBlobs, or a credential that is not discoverable).
    func largeBlobSupport(
        _ inputs: AuthenticationExtensionsLargeBlobInputsJSON?, info: GetInfoResponse,
        residentKey: Bool
    ) throws(WebAuthnError) -> Bool {
        guard let inputs else { return false }
        if inputs.read != nil || inputs.write != nil {
            throw .notSupported("largeBlob read and write are authentication inputs.")
        }
        let possible =
            residentKey && info.options["largeBlobs"] == true && info.extensions.contains(LargeBlobKey.identifier)
        if inputs.support == "required", !possible {
            throw .notSupported("The authenticator cannot store a large blob for this credential.")
        }
        return possible
    }

    /// Runs one CTAP2 exchange, turning its failure into a WebAuthn error.
    func call<T: Sendable>(_ rpID: String, _ body: () async throws(CTAP2Error) -> T) async throws(WebAuthnError) -> T {
        do {
            return try await body()
        } catch {
            throw mapError(error, rpID: rpID)
        }
    }
}
