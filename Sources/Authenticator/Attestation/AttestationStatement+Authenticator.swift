import CTAP

extension Authenticator {
    /// makeCredential step 20 (CTAP 2.1 §6.1.2): the attestation statement over
    /// authenticatorData ‖ clientDataHash, as `--attestation` says; `none` also when the platform
    /// prefers it (CTAP 2.2 §6.1.2, attestationFormatsPreference). A `bogus-signature` fault
    /// spoils the statement's signature too.
    /// An enterprise attestation (CTAP 2.1 §7.1) is `packed` under the enterprise certificate, whatever the preference.
    func attestationStatement(
        authenticatorData: [UInt8], clientDataHash: [UInt8], key: CredentialKey,
        preferredFormat: String?, enterprise: Bool = false
    ) async throws(CTAPStatus) -> AttestationStatement {
        let signed = authenticatorData + clientDataHash
        if enterprise {
            let authority = try await attestationAuthority()
            guard let certificate = authority.enterpriseCertificate else { throw .other }
            return .packed(
                alg: COSEAlgorithm.es256.rawValue,
                sig: Self.faults.reported(signature: try authority.sign(signed, enterprise: true)),
                x5c: [certificate])
        }
        switch configuration.attestation {
        case _ where preferredFormat == "none", .none:
            return .none
        case .selfAttestation:
            return .packed(
                alg: key.algorithm.rawValue, sig: Self.faults.reported(signature: try key.sign(signed)), x5c: nil)
        case .x5c:
            let authority = try await attestationAuthority()
            // WebAuthn L3 §8.2: basic attestation; x5c is the attestation certificate (the root is the RP's trust anchor).
            return .packed(
                alg: COSEAlgorithm.es256.rawValue, sig: Self.faults.reported(signature: try authority.sign(signed)),
                x5c: [authority.attestationCertificate])
        }
    }

    /// The keystore's attestation authority, made and stored on first use.
    func attestationAuthority() async throws(CTAPStatus) -> AttestationAuthority {
        if let authority = try await deviceState().attestationAuthority { return authority }
        let made: AttestationAuthority
        do { made = try AttestationAuthority.make(aaguid: configuration.aaguid) } catch { throw .other }
        return try await updateDeviceState { state in
            if state.attestationAuthority == nil { state.attestationAuthority = made }
            return state.attestationAuthority ?? made
        }
    }
}
