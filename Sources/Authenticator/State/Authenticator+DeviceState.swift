import CTAP
import Crypto

extension Authenticator {
    /// The device state, created with a fresh wrapping key the first time the device is used.
    /// The cache is exact: the store belongs to this authenticator alone (a keystore's
    /// directory is locked while it is open).
    func deviceState() async throws(CTAPStatus) -> DeviceState {
        if let cachedDeviceState { return cachedDeviceState }
        let loaded: DeviceState?
        do { loaded = try await store.loadDeviceState() } catch { throw storeFailure(error) }
        if let loaded {
            cachedDeviceState = loaded
            return loaded
        }
        return try await updateDeviceState { $0 }
    }

    /// Reads, changes and writes the device state in one store transaction (a missing one
    /// starts factory-fresh), so a change made between a read and a write cannot be lost.
    @discardableResult
    func updateDeviceState<T: Sendable>(
        _ change: @escaping @Sendable (inout DeviceState) throws(CTAPStatus) -> T
    ) async throws(CTAPStatus) -> T {
        let fresh = DeviceState(wrappingKey: SecureRandom.bytes(32))
        let outcome: (result: T, state: DeviceState)
        do {
            outcome = try await store.updateDeviceState { stored throws(CTAPStatus) in
                var state = stored ?? fresh
                let result = try change(&state)
                stored = state
                return (result, state)
            }
        } catch {
            throw storeFailure(error)
        }
        cachedDeviceState = outcome.state
        return outcome.result
    }

    /// The status a store's failure answers with; a failure to read or write also goes to
    /// the log (with its cause, which the host never sees).
    nonisolated func storeFailure(_ error: CredentialStoreError) -> CTAPStatus {
        if case .failed(let cause) = error {
            logger.error("credential store failed", metadata: ["error": "\(cause)"])
        }
        return error.status
    }

    static func sha256(_ bytes: [UInt8]) -> [UInt8] {
        Array(SHA256.hash(data: bytes))
    }
}
