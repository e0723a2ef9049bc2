import CTAP

extension CTAP2Session {
    /// passkeyd's test attestation root (vendor command passkeydAttestationRoot, docs/vendor-commands.md),
    /// DER: the trust anchor for credentials made under `passkeyd --attestation x5c`.
    public func attestationRoot() async throws(CTAP2Error) -> [UInt8] {
        try await call(AttestationRootRequest()).certificate
    }
}
