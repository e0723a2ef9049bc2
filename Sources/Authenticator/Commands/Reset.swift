import CTAP

extension Authenticator {
    /// authenticatorReset (CTAP 2.1 §6.6): within the window after power-up and with
    /// user presence, forget every credential, the PIN (with its retries and tokens) and the wrapping key, so that
    /// non-resident credential IDs minted before no longer work.
    func reset() async throws(CTAPStatus) {
        guard configuration.now() - poweredUpAt <= configuration.resetWindow else { throw .notAllowed }
        try await collectPresence(UserActionRequest(purpose: .reset))
        // The store replaces (or drops) the device state in the same write; the next use reads
        // it, or starts a fresh one, with a new wrapping key either way.
        do { try await store.deleteAll() } catch { throw storeFailure(error) }
        cachedDeviceState = nil
        // The counters start again from the fresh state's marks.
        counterLeases = SignatureCounterLeases()
        // The PIN went with the device state; its tokens and key agreement keys go too.
        pinUV = PinUvState()
        // Every caller's enumeration and assertion run named credentials that are gone.
        conversations = [:]
        logger.notice("authenticator reset: every credential is gone")
    }

    /// authenticatorSelection (CTAP 2.1 §6.9): the user touches the device they mean.
    func selection() async throws(CTAPStatus) {
        try await collectPresence(UserActionRequest(purpose: .selection))
    }
}
