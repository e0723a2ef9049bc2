import CTAP
import Synchronization

/// A credential store with, beside the device's own discoverable credentials, the
/// non-discoverable credentials a test imported under an ID it chose (Chrome's
/// `WebAuthn.addCredential` with `isResidentCredential: false`) and, while the daemon's test
/// controls are open (`passkeyd --open-test-controls`, `keepingMadeCredentials`), every
/// non-discoverable credential the device itself makes (U2F_REGISTER's too, scoped by their
/// application parameter: `CredentialSource.application`).
///
/// passkeyd's own non-discoverable credentials keep their key inside their ID
/// (`CredentialWrapping`), so a caller's ID cannot be one: such a credential is kept here, in the
/// daemon's memory, as Chrome keeps every credential of a virtual authenticator. It answers a
/// request whose allowList names its ID (CTAP 2.1 §6.2.2 step 7 looks the ID up in the
/// store), and is never offered where discoverable credentials are: discovery
/// (`credentials(rpID:)`), credential management (`allCredentials`, `count`), getInfo's counts.
/// authenticatorReset forgets them with everything else; a restart forgets them too.
///
/// The credentials the device makes, kept: a test suite's `get_credentials()` lists every
/// credential, as Chrome's `WebAuthn.getCredentials` does, and removing one must stop it
/// working; a wrapped ID would go on working wherever it is sent. So makeCredential hands
/// this store each non-discoverable credential it makes (`keepNonDiscoverable`, which every
/// other store declines): kept, it is named by a random ID instead and is one of these, like
/// an import: its own counter, its backup flags, the test controls' listing, removal and
/// properties. Volatile as they are: a restart or authenticatorReset forgets it and then no
/// assertion finds it any more, as nothing of a virtual authenticator outlives its removal in
/// Chrome. Its user handle is listed (Chrome lists the `user.id` given at creation), but the
/// spec steps see it without one: an assertion names no user for it, as none names one for
/// a wrapped ID or in Chrome (whose device answers `user` for resident credentials only).
/// A daemon whose controls are not open keeps nothing: its IDs are wrapped, as ever.
///
/// The one place these credentials exist: the spec steps see a `CredentialStore`.
public final class NonDiscoverableCredentials: CredentialStore {
    /// The device's own store.
    public let base: any CredentialStore
    /// Whether the non-discoverable credentials the device makes are kept here too.
    public let keepsMadeCredentials: Bool
    private let table = Table()
    /// How many are held, so a store with none (every daemon but a test's) answers a lookup
    /// without a hop to `table`.
    private let held = Atomic<Int>(0)

    public init(base: any CredentialStore, keepingMadeCredentials: Bool = false) {
        self.base = base
        keepsMadeCredentials = keepingMadeCredentials
    }

    private actor Table {
        var records: [[UInt8]: CredentialSource] = [:]
        var order: [[UInt8]] = []
        /// The IDs of the credentials the device made, whose user only the listing shows.
        var made: Set<[UInt8]> = []

        func insert(_ source: CredentialSource, made: Bool = false) -> Int {
            if records.updateValue(source, forKey: source.id) == nil { order.append(source.id) }
            if made { self.made.insert(source.id) }
            return records.count
        }

        func remove(_ id: [UInt8]) -> Int {
            if records.removeValue(forKey: id) != nil {
                order.removeAll { $0 == id }
                made.remove(id)
            }
            return records.count
        }

        func removeAll() {
            records = [:]
            order = []
            made = []
        }

        func update(_ id: [UInt8], _ change: (inout CredentialSource) -> Void) -> Bool {
            guard var source = records[id] else { return false }
            change(&source)
            records[id] = source
            return true
        }

        /// The credential as the spec steps see it: one the device made without its user.
        func answering(_ id: [UInt8]) -> CredentialSource? {
            guard var source = records[id] else { return nil }
            if made.contains(id) { source.user = PublicKeyCredentialUserEntity(id: []) }
            return source
        }

        /// Newest first, as a store lists its credentials.
        func all(rpID: String?) -> [CredentialSource] {
            order.reversed().compactMap { records[$0] }.filter { rpID.map($0.isScoped(to:)) ?? true }
        }
    }

    // MARK: What only the test controls call

    /// Keeps a non-discoverable credential. An ID the device already holds, discoverable or
    /// not, is refused (`CTAP2_ERR_CREDENTIAL_EXCLUDED`): two credentials never share an ID.
    public func saveNonDiscoverable(_ source: CredentialSource) async throws(CTAPStatus) {
        let existing: CredentialSource?
        do { existing = try await credential(id: source.id) } catch { throw error.status }
        guard existing == nil else { throw .credentialExcluded }
        held.store(await table.insert(source), ordering: .releasing)
    }

    /// Whether `id` is one of these.
    public func holds(_ id: [UInt8]) async -> Bool {
        await nonDiscoverable(id: id) != nil
    }

    /// The non-discoverable credentials (of `rpID`, when given), newest first, as the test
    /// controls list them: with the user a credential was made for.
    public func nonDiscoverable(rpID: String? = nil) async -> [CredentialSource] {
        guard held.load(ordering: .acquiring) > 0 else { return [] }
        return await table.all(rpID: rpID)
    }

    /// The non-discoverable credential with this ID, as the test controls list it; nil when it
    /// is none of these.
    public func nonDiscoverable(id: [UInt8]) async -> CredentialSource? {
        guard held.load(ordering: .acquiring) > 0 else { return nil }
        return await table.records[id]
    }

    /// Rewrites a credential where it lives: here if it is one of these, else in `base`.
    public func replace(_ source: CredentialSource) async throws(CredentialStoreError) {
        if held.load(ordering: .acquiring) > 0, await table.update(source.id, { $0 = source }) { return }
        try await base.save(source)
    }

    // MARK: CredentialStore

    public nonisolated(nonsending) func credentials(rpID: String) async throws(CredentialStoreError)
        -> [CredentialSource]
    {
        try await base.credentials(rpID: rpID)
    }

    public nonisolated(nonsending) func credential(id: [UInt8]) async throws(CredentialStoreError)
        -> CredentialSource?
    {
        if held.load(ordering: .acquiring) > 0, let source = await table.answering(id) { return source }
        return try await base.credential(id: id)
    }

    /// Keeps a credential the device made, when the test controls are open.
    public nonisolated(nonsending) func keepNonDiscoverable(_ credential: CredentialSource)
        async throws(CredentialStoreError) -> Bool
    {
        guard keepsMadeCredentials else { return false }
        held.store(await table.insert(credential, made: true), ordering: .releasing)
        return true
    }

    public func allCredentials() async throws(CredentialStoreError) -> [CredentialSource] {
        try await base.allCredentials()
    }

    public func count() async throws(CredentialStoreError) -> Int { try await base.count() }

    public var capacity: Int { base.capacity }

    public func save(_ credential: CredentialSource) async throws(CredentialStoreError) {
        // A discoverable credential of the same ID takes the place of a non-discoverable one.
        if held.load(ordering: .acquiring) > 0 { held.store(await table.remove(credential.id), ordering: .releasing) }
        try await base.save(credential)
    }

    public func durable() async throws(CredentialStoreError) { try await base.durable() }

    public var isDurable: Bool { base.isDurable }

    public func updateSignCount(credentialID: [UInt8], to signCount: UInt32) async throws(CredentialStoreError) {
        if held.load(ordering: .acquiring) > 0, await table.update(credentialID, { $0.signCount = signCount }) {
            return
        }
        try await base.updateSignCount(credentialID: credentialID, to: signCount)
    }

    public func updateUser(credentialID: [UInt8], to user: PublicKeyCredentialUserEntity)
        async throws(CredentialStoreError)
    {
        let name = user.name
        let displayName = user.displayName
        let updated =
            held.load(ordering: .acquiring) > 0
            ? await table.update(credentialID) {
                $0.user.name = name
                $0.user.displayName = displayName
            } : false
        if updated { return }
        try await base.updateUser(credentialID: credentialID, to: user)
    }

    public func delete(credentialID: [UInt8]) async throws(CredentialStoreError) {
        if held.load(ordering: .acquiring) > 0 { held.store(await table.remove(credentialID), ordering: .releasing) }
        try await base.delete(credentialID: credentialID)
    }

    public func deleteAll() async throws(CredentialStoreError) {
        await table.removeAll()
        held.store(0, ordering: .releasing)
        try await base.deleteAll()
    }

    public func loadDeviceState() async throws(CredentialStoreError) -> DeviceState? {
        try await base.loadDeviceState()
    }

    public func saveDeviceState(_ state: DeviceState) async throws(CredentialStoreError) {
        try await base.saveDeviceState(state)
    }

    public func updateDeviceState<T: Sendable>(
        _ change: @escaping @Sendable (inout DeviceState?) throws(CTAPStatus) -> T
    ) async throws(CredentialStoreError) -> T {
        try await base.updateDeviceState(change)
    }
}
