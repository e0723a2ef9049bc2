import CBOR
import CTAP
import Crypto
import WebAuthn

extension RelyingParty {
    /// Verifies a registration response (WebAuthn L3 §7.1) against the options it answers.
    ///
    /// - Parameters:
    ///   - response: the client's `RegistrationResponseJSON`.
    ///   - options: the creation options the response answers.
    ///   - requireUserVerification: step 15's policy; by default, whether the options
    ///     asked for `userVerification: required`.
    /// - Returns: the credential record to store (step 27). Checking that the credential ID is
    ///   not registered yet (step 26) is the caller's, who owns the records.
    public func verifyRegistration(
        _ response: RegistrationResponseJSON,
        options: PublicKeyCredentialCreationOptionsJSON,
        requireUserVerification: Bool? = nil
    ) throws(VerificationError) -> RegisteredCredential {
        try checkCredentialIdentity(response)
        // Steps 5–10.
        _ = try checkClientData(response.response.clientDataJSON, type: .create, challenge: options.challenge)
        // Step 11.
        let clientDataHash = Array(SHA256.hash(data: response.response.clientDataJSON))
        // Step 12.
        let (format, authDataBytes, statementCBOR) = try Self.decodeAttestationObject(
            response.response.attestationObject)
        let authData: AuthenticatorData
        do { authData = try AuthenticatorData(bytes: authDataBytes) } catch { throw .malformedAuthenticatorData }
        // Steps 13–16.
        let requireUV = requireUserVerification ?? (options.authenticatorSelection?.userVerification == .required)
        try checkAuthenticatorData(authData, requireUserVerification: requireUV)
        guard let attested = authData.attestedCredentialData else { throw .missingAttestedCredentialData }
        guard attested.credentialID == response.rawId else { throw .credentialIDMismatch }
        // Step 19.
        let algorithm = attested.publicKey.algorithm.rawValue
        guard options.pubKeyCredParams.contains(where: { $0.type == "public-key" && $0.alg == algorithm }) else {
            throw .algorithmNotAllowed(algorithm)
        }
        // Step 21: only the formats a software authenticator produces.
        guard format == "none" || format == "packed" else { throw .unsupportedAttestationFormat(format) }
        let statement: AttestationStatement
        do { statement = try AttestationStatement(format: format, cbor: statementCBOR) } catch {
            throw .malformedAttestationStatement
        }
        // Step 22, with the packed verification procedure of §8.2 for self attestation.
        switch statement {
        case .none:
            break
        case .packed(let alg, let sig, let x5c):
            guard x5c == nil else { throw .attestationTrustPathUnsupported }
            guard alg == algorithm else { throw .attestationAlgorithmMismatch(statement: alg, credential: algorithm) }
            guard try attested.publicKey.verifies(sig, over: authDataBytes + clientDataHash) else {
                throw .invalidAttestationSignature
            }
        case .fidoU2F:
            // Refused by step 21 above; named so a new format is a decision, not a default.
            throw .unsupportedAttestationFormat(format)
        }
        // Step 25.
        guard attested.credentialID.count <= 1023 else { throw .credentialIDTooLong }
        // Step 27.
        return RegisteredCredential(
            id: attested.credentialID, publicKey: attested.publicKey, signCount: authData.signCount,
            userHandle: options.user.id, transports: response.response.transports,
            backupEligible: authData.flags.contains(.backupEligible), backedUp: authData.flags.contains(.backedUp),
            aaguid: attested.aaguid, attestationFormat: format)
    }

    /// `fmt`, `authData` and `attStmt` of an attestation object (WebAuthn L3 §6.5.4).
    static func decodeAttestationObject(_ bytes: [UInt8]) throws(VerificationError) -> (String, [UInt8], CBORValue) {
        guard let map = (try? CBORDecoder.decode(bytes))?.mapValue,
            let format = map["fmt"]?.textValue,
            let authData = map["authData"]?.bytesValue,
            let statement = map["attStmt"], statement.mapValue != nil
        else { throw .malformedAttestationObject }
        return (format, authData, statement)
    }
}
