import CTAP

extension Authenticator {
    /// Whether this device can give enterprise attestation (CTAP 2.1 §7.1, getInfo `ep` present):
    /// only with `--attestation x5c`, whose authority issued an enterprise certificate.
    func isEnterpriseAttestationCapable(_ state: DeviceState) -> Bool {
        guard configuration.attestation == .x5c, !configuration.rules.withheldCommands.contains(.config) else {
            return false
        }
        // An authority made before enterprise attestation existed has no enterprise certificate.
        return state.attestationAuthority.map { $0.enterpriseCertificate != nil } ?? true
    }

    /// makeCredential's enterpriseAttestation (CTAP 2.1 §6.1.2 step 9, §7.1): whether this
    /// credential gets an enterprise attestation. A device not capable of it, or on which it is
    /// not enabled, answers `CTAP1_ERR_INVALID_PARAMETER`; a value other than 1 or 2
    /// `CTAP2_ERR_INVALID_OPTION`. Vendor-facilitated (1) attests only the RP IDs configured
    /// in the device; platform-managed (2) attests whatever RP the platform vouches for.
    func enterpriseAttestation(for request: MakeCredentialRequest) async throws(CTAPStatus) -> Bool {
        guard let mode = request.enterpriseAttestation else { return false }
        let state = try await deviceState()
        guard isEnterpriseAttestationCapable(state), state.enterpriseAttestation == true else {
            throw .invalidParameter
        }
        switch mode {
        case 1: return configuration.enterpriseAttestationRPIDs.contains(request.rp.id)
        case 2: return true
        default: throw .invalidOption
        }
    }

    /// enableEnterpriseAttestation (CTAP 2.1 §6.11.3): on until the next reset.
    func enableEnterpriseAttestation() async throws(CTAPStatus) {
        guard isEnterpriseAttestationCapable(try await deviceState()) else { throw .invalidSubcommand }
        // Made now, so the first enterprise attestation does not wait for it.
        _ = try await attestationAuthority()
        try await updateDeviceState { $0.enterpriseAttestation = true }
        logger.notice("enterprise attestation enabled")
    }
}
