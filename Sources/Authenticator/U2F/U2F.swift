import CTAP

/// CTAP1/U2F (FIDO U2F Raw Message Formats; CTAP 2.1 §10, §11.2.9.1.1 CTAPHID_MSG): the
/// APDU is read into a `U2FRequest` at the edge and each command follows its own file.
/// Refusals are status words; U2F has no other way to fail.
extension Authenticator {
    public func handleAPDU(
        _ apdu: [UInt8], from caller: CTAPCaller,
        progress: nonisolated(nonsending) @escaping @Sendable (KeepaliveStatus) async -> Void
    ) async -> [UInt8] {
        let result = await inTurn(progress: progress) { () async throws(StatusWord) -> U2FResponse in
            // A U2F command is the caller's next command: a CTAP2 conversation ends with it.
            conversations[caller] = nil
            return try await u2f(apdu)
        }
        switch result {
        case .success(let response):
            return response.apdu
        case .failure(let status):
            logger.debug("U2F command refused", metadata: ["status": "\(String(status.rawValue, radix: 16))"])
            return status.bytes
        }
    }

    private func u2f(_ apdu: [UInt8]) async throws(StatusWord) -> U2FResponse {
        guard configuration.profile.protocols.contains(.ctap1) else { throw .instructionNotSupported }
        let request = try U2FRequest(apdu: apdu)
        let response: U2FResponse
        switch request {
        case .register(let register): response = try await u2fRegister(register)
        case .authenticate(let authenticate): response = try await u2fAuthenticate(authenticate)
        case .version: response = u2fVersion()
        }
        // The test controls' one act here, after the steps, as `answer` has it for CTAP2.
        await controls.announce(DeviceEvent(u2f: request, answered: response))
        return response
    }

    /// A test of user presence (§4.2, §5.2): anything but a touch is SW_CONDITIONS_NOT_SATISFIED,
    /// which U2F hosts answer by asking again.
    func u2fPresence(_ purpose: UserActionRequest) async throws(StatusWord) {
        guard await askPresence(purpose) == .approved, !Task.isCancelled else { throw .conditionsNotSatisfied }
    }

    /// Runs a step of the CTAP2 machinery (device state, store, keys); its failure is the
    /// device's own, which U2F can only call "no precise diagnosis".
    func u2fDevice<T>(_ step: () async throws(CTAPStatus) -> T) async throws(StatusWord) -> T {
        do { return try await step() } catch { throw .noPreciseDiagnosis }
    }
}
