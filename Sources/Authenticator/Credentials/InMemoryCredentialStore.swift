import CTAP

/// A `CredentialStore` that keeps everything in memory: for tests and throwaway devices.
public actor InMemoryCredentialStore: CredentialStore {
    /// Every credential by ID, with the order it was saved in (`allCredentials` is newest first).
    private var records: [[UInt8]: (order: UInt64, credential: CredentialSource)] = [:]
    /// Each RP's credential IDs, oldest first: a lookup by RP reads its own few, not every
    /// credential, and a save appends, not copies the whole store (the bench's in-process
    /// memory-store figure measured this store's copies and scans, not the authenticator).
    private var idsByRP: [String: [[UInt8]]] = [:]
    private var nextOrder: UInt64 = 0
    private var deviceState: DeviceState?
    public nonisolated let capacity: Int

    public init(capacity: Int = 100_000) {
        self.capacity = capacity
    }

    public func credentials(rpID: String) -> [CredentialSource] {
        (idsByRP[rpID] ?? []).reversed().compactMap { records[$0]?.credential }
    }

    public func credential(id: [UInt8]) -> CredentialSource? {
        records[id]?.credential
    }

    public func allCredentials() -> [CredentialSource] {
        records.values.sorted { $0.order > $1.order }.map(\.credential)
    }

    public func count() -> Int {
        records.count
    }

    /// Throws `.full` when full, unless it replaces a credential of the same RP and user.
    public func save(_ credential: CredentialSource) throws(CredentialStoreError) {
        // Replaced: one of the same RP and user (CTAP 2.1 §6.1.2 step 17), and one of the same ID.
        var replaced = (idsByRP[credential.rp.id] ?? []).filter {
            records[$0]?.credential.user.id == credential.user.id
        }
        if records[credential.id] != nil, !replaced.contains(credential.id) { replaced.append(credential.id) }
        guard records.count - replaced.count < capacity else { throw .full }
        replaced.forEach(remove)
        nextOrder += 1
        records[credential.id] = (nextOrder, credential)
        idsByRP[credential.rp.id, default: []].append(credential.id)
    }

    public func updateSignCount(credentialID: [UInt8], to signCount: UInt32) {
        records[credentialID]?.credential.signCount = signCount
    }

    public func updateUser(credentialID: [UInt8], to user: PublicKeyCredentialUserEntity) {
        guard let stored = records[credentialID]?.credential.user else { return }
        records[credentialID]?.credential.user = PublicKeyCredentialUserEntity(
            id: stored.id, name: user.name, displayName: user.displayName)
    }

    public func delete(credentialID: [UInt8]) {
        remove(credentialID)
    }

    public func deleteAll() {
        records.removeAll()
        idsByRP.removeAll()
        deviceState = nil
    }

    private func remove(_ id: [UInt8]) {
        guard let rpID = records.removeValue(forKey: id)?.credential.rp.id else { return }
        idsByRP[rpID]?.removeAll { $0 == id }
        if idsByRP[rpID]?.isEmpty == true { idsByRP[rpID] = nil }
    }

    public func loadDeviceState() -> DeviceState? {
        deviceState
    }

    public func saveDeviceState(_ state: DeviceState) {
        deviceState = state
    }

    public func updateDeviceState<T: Sendable>(
        _ change: @escaping @Sendable (inout DeviceState?) throws(CTAPStatus) -> T
    ) throws(CredentialStoreError) -> T {
        var state = deviceState
        let result: T
        do { result = try change(&state) } catch { throw .refused(error) }
        deviceState = state
        return result
    }
}
