import CTAP

/// Where resident credentials and device state live. The authenticator owns the
/// rules; a store only keeps records, durably once a call returns (a `save`: once a
/// `durable()` after it returns). Every failure is a `CredentialStoreError`, which says
/// what the host is told.
public protocol CredentialStore: Sendable {
    /// Resident credentials whose RP ID is `rpID`, newest first. `nonisolated(nonsending)`, as
    /// the next: a store that can answer on the caller's executor (the Keystore does) costs a
    /// sign-in no executor switch there and back.
    nonisolated(nonsending) func credentials(rpID: String) async throws(CredentialStoreError) -> [CredentialSource]
    /// The resident credential with this ID, if any.
    nonisolated(nonsending) func credential(id: [UInt8]) async throws(CredentialStoreError) -> CredentialSource?
    /// Every resident credential, newest first (credential management enumerates these).
    func allCredentials() async throws(CredentialStoreError) -> [CredentialSource]
    /// How many resident credentials are stored.
    func count() async throws(CredentialStoreError) -> Int
    /// How many resident credentials the store can hold in all.
    var capacity: Int { get }

    /// Stores a new resident credential. In the same atomic write, removes any
    /// credential with the same RP ID and user handle (CTAP 2.1 §6.1.2 step 17:
    /// the new one replaces it). A store already holding `capacity` credentials throws
    /// `.full`, unless the save replaces one of the same RP ID and user handle.
    /// Visible to every later call at once; durable once `durable()` returns after it, so a
    /// store may flush several registrations together (group commit).
    func save(_ credential: CredentialSource) async throws(CredentialStoreError)
    /// Returns once everything stored before the call is durable.
    func durable() async throws(CredentialStoreError)
    /// True when everything stored so far is durable: `durable()` would return at once.
    var isDurable: Bool { get }
    /// Records a new signature counter value for a credential.
    func updateSignCount(credentialID: [UInt8], to signCount: UInt32) async throws(CredentialStoreError)
    /// Replaces the name and display name of a credential's user (credential management's
    /// updateUserInformation). The user handle never changes: a different `user.id` is ignored.
    func updateUser(credentialID: [UInt8], to user: PublicKeyCredentialUserEntity) async throws(CredentialStoreError)
    /// Keeps a non-discoverable credential the device has just made, under the random ID it
    /// carries, and returns true: stored client-side (WebAuthn L3 §6.2.2), it answers a request
    /// whose allowList names that ID through `credential(id:)`, and is never discovered, listed or
    /// counted as the resident ones are. Or keeps nothing and returns false, and the device seals
    /// the key inside the ID instead (server-side, `CredentialWrapping`). The device's own stores
    /// keep none (the default); `NonDiscoverableCredentials` keeps them while a daemon's test
    /// controls are open, as Chrome's virtual authenticator keeps every credential it makes.
    nonisolated(nonsending) func keepNonDiscoverable(_ credential: CredentialSource) async throws(CredentialStoreError)
        -> Bool
    /// Removes one credential; removing an absent one is not an error.
    func delete(credentialID: [UInt8]) async throws(CredentialStoreError)
    /// Removes every credential and the device state, or replaces it with a factory-fresh
    /// one in the same write (authenticatorReset); either way its wrapping key is gone.
    func deleteAll() async throws(CredentialStoreError)

    /// The device state; nil while the store has none (a store may create it on first use).
    func loadDeviceState() async throws(CredentialStoreError) -> DeviceState?
    /// Replaces the whole device state.
    func saveDeviceState(_ state: DeviceState) async throws(CredentialStoreError)
    /// Reads the device state, lets `change` modify it (nil: none stored yet) and writes the
    /// result, all in one atomic step, so no write made in between is lost. Returns `change`'s result.
    func updateDeviceState<T: Sendable>(
        _ change: @escaping @Sendable (inout DeviceState?) throws(CTAPStatus) -> T
    ) async throws(CredentialStoreError) -> T
}

extension CredentialStore {
    /// A store whose every call is durable when it returns has nothing left to flush.
    public func durable() async throws(CredentialStoreError) {}
    public var isDurable: Bool { true }

    /// A store keeps no non-discoverable credential: the device wraps each one's key into its ID.
    public nonisolated(nonsending) func keepNonDiscoverable(_ credential: CredentialSource)
        async throws(CredentialStoreError) -> Bool
    { false }
}
