import CTAP

/// A `CredentialStore` that keeps everything in memory: for tests and throwaway devices.
public actor InMemoryCredentialStore: CredentialStore {
    /// Oldest first; readers reverse it.
    private var records: [CredentialSource] = []
    private var deviceState: DeviceState?
    public nonisolated let capacity: Int

    public init(capacity: Int = 100_000) {
        self.capacity = capacity
    }

    public func credentials(rpID: String) -> [CredentialSource] {
        records.reversed().filter { $0.rp.id == rpID }
    }

    public func credential(id: [UInt8]) -> CredentialSource? {
        records.first { $0.id == id }
    }

    public func allCredentials() -> [CredentialSource] {
        records.reversed()
    }

    public func count() -> Int {
        records.count
    }

    /// Throws `CTAPStatus.keyStoreFull` when full, unless it replaces a credential of the same RP and user.
    public func save(_ credential: CredentialSource) throws {
        let kept = records.filter { !($0.rp.id == credential.rp.id && $0.user.id == credential.user.id) && $0.id != credential.id }
        guard kept.count < capacity else { throw CTAPStatus.keyStoreFull }
        records = kept + [credential]
    }

    public func updateSignCount(credentialID: [UInt8], to signCount: UInt32) {
        guard let index = records.firstIndex(where: { $0.id == credentialID }) else { return }
        records[index].signCount = signCount
    }

    public func updateUser(credentialID: [UInt8], to user: PublicKeyCredentialUserEntity) {
        guard let index = records.firstIndex(where: { $0.id == credentialID }) else { return }
        records[index].user = PublicKeyCredentialUserEntity(id: records[index].user.id, name: user.name, displayName: user.displayName)
    }

    public func delete(credentialID: [UInt8]) {
        records.removeAll { $0.id == credentialID }
    }

    public func deleteAll() {
        records.removeAll()
        deviceState = nil
    }

    public func loadDeviceState() -> DeviceState? {
        deviceState
    }

    public func saveDeviceState(_ state: DeviceState) {
        deviceState = state
    }

    public func updateDeviceState<T: Sendable>(_ change: @escaping @Sendable (inout DeviceState?) throws -> T) throws -> T {
        var state = deviceState
        let result = try change(&state)
        deviceState = state
        return result
    }
}
