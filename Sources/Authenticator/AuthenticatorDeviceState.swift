import CTAP
import Crypto

extension Authenticator {
    /// The device state, created with a fresh wrapping key the first time the device is used.
    func deviceState() async throws(CTAPStatus) -> DeviceState {
        if let cachedDeviceState { return cachedDeviceState }
        let loaded: DeviceState?
        do { loaded = try await store.loadDeviceState() } catch { throw storeFailure(error) }
        if let loaded {
            cachedDeviceState = loaded
            return loaded
        }
        let fresh = DeviceState(wrappingKey: Self.randomBytes(32))
        try await saveDeviceState(fresh)
        return fresh
    }

    func saveDeviceState(_ state: DeviceState) async throws(CTAPStatus) {
        do { try await store.saveDeviceState(state) } catch { throw storeFailure(error) }
        cachedDeviceState = state
    }

    /// A store that cannot read or write answers CTAP1_ERR_OTHER; the cause goes to the log, not the host.
    func storeFailure(_ error: any Error) -> CTAPStatus {
        logger.error("credential store failed", metadata: ["error": "\(error)"])
        return .other
    }

    static func randomBytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }

    static func sha256(_ bytes: [UInt8]) -> [UInt8] {
        Array(SHA256.hash(data: bytes))
    }
}
