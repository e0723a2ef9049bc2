import CTAP
import Crypto
import WebAuthn

extension WebAuthnClient {
    /// create() on a CTAP1/U2F-only key: authenticatorMakeCredential mapped onto U2F_REGISTER as
    /// CTAP 2.1 §10.2 has it, and the answer turned into a `fido-u2f` attestation object
    /// (WebAuthn L3 §8.6). What U2F cannot do is refused as Chromium refuses it for such a key:
    /// a required resident key or user verification is NotAllowedError (no suitable
    /// authenticator), a request without ES256 — U2F's only algorithm — NotSupportedError.
    func createOverCTAP1(
        _ options: PublicKeyCredentialCreationOptionsJSON, rpID: String, parameters: [PublicKeyCredentialParameters],
        selection: AuthenticatorSelectionCriteria, clientDataJSON: [UInt8], clientDataHash: [UInt8]
    ) async throws(WebAuthnError) -> RegistrationResponseJSON {
        let info = AuthenticatorProtocol.ctap1Info
        if selection.effectiveResidentKey == .required {
            throw .notAllowed("This security key cannot store passkeys.")
        }
        if selection.userVerification == .required {
            throw .notAllowed("This security key cannot verify the user.")
        }
        guard parameters.contains(where: { $0.alg == COSEAlgorithm.es256.rawValue }) else {
            throw .notSupported("The authenticator supports none of the site's algorithms.")
        }
        _ = try CredentialProtection.requested(options.extensions, selection: selection, info: info)
        _ = try largeBlobSupport(options.extensions?.largeBlob, info: info, residentKey: false)

        let session = makeCTAP1Session()
        // §10.2: the application parameter is the rpIdHash, the challenge parameter the clientDataHash.
        let application = Array(SHA256.hash(data: Array(rpID.utf8)))
        // §10.2 step 1: an excluded credential the key knows (check-only answers "presence
        // required") ends the request once the person has touched it, as CTAP2's exclude list does.
        for excluded in options.excludeCredentials where excluded.type == "public-key" {
            let known = try await call(rpID) { () async throws(CTAP2Error) in
                try await session.recognizes(keyHandle: excluded.id, application: application)
            }
            guard known else { continue }
            try await call(rpID) { () async throws(CTAP2Error) in try await session.waitForTouch() }
            throw mapStatus(.credentialExcluded, rpID: rpID)
        }
        let registration = try await call(rpID) { () async throws(CTAP2Error) in
            try await session.register(challenge: clientDataHash, application: application)
        }
        loggers.authentication.info("U2F credential created", metadata: ["rp": "\(rpID)"])

        // §10.2: authenticator data with UP and AT, counter 0, an all-zero AAGUID, the key handle as
        // the credential ID and the point as a COSE EC2 P-256 key.
        let point = registration.publicKey
        let authenticatorData = AuthenticatorData(
            rpIDHash: application, flags: .userPresent, signCount: 0,
            attestedCredentialData: AttestedCredentialData(
                aaguid: [UInt8](repeating: 0, count: 16), credentialID: registration.keyHandle,
                publicKey: .p256(x: Array(point[1..<33]), y: Array(point[33..<65]), algorithm: .es256)))
        // Step 20 (attestation conveyance "none"): browsers replace the statement with `none`.
        let statement: AttestationStatement =
            options.attestation == .none || options.attestation == .indirect
            ? .none : .fidoU2F(sig: registration.signature, x5c: [registration.attestationCertificate])
        var outputs = AuthenticationExtensionsClientOutputsJSON()
        if options.extensions?.credProps == true { outputs.credProps = .init(rk: false) }
        if options.extensions?.largeBlob != nil { outputs.largeBlob = .init(supported: false) }
        if options.extensions?.prf != nil { outputs.prf = AuthenticationExtensionsPRFOutputsJSON(enabled: false) }
        if options.extensions?.hmacCreateSecret == true { outputs.hmacCreateSecret = false }
        if options.extensions?.credBlob != nil { outputs.credBlob = false }
        let attachment = Attachment(info)
        do throws(CTAPStatus) {
            return try RegistrationResponseJSON(
                clientDataJSON: clientDataJSON,
                attestationObject: AttestationObject(authenticatorData: authenticatorData.bytes, statement: statement),
                transports: attachment.transports, authenticatorAttachment: attachment.attachment,
                clientExtensionResults: outputs)
        } catch {
            throw .unknown("The security key's registration is malformed.", cause: .ctap(error))
        }
    }
}
