/// What a keystore promises about its rows. The format is bound into the data key's wrap
/// (its label opens the associated data), so nobody without the key-encryption key can
/// make a store claim an older format, and so escape the newer one's checks.
enum KeystoreFormat: Sendable, CaseIterable {
    /// Written before the device state was made at creation: its row appeared on first use,
    /// so a store without one may be an unused store. Upgraded to `v2` when opened.
    case v1
    /// The device-state row is written with the header, before the store gets its name, and
    /// is never deleted (a reset replaces it): a store without one was tampered with.
    case v2

    static let current = KeystoreFormat.v2

    var dataKeyLabel: String {
        switch self {
        case .v1: return "passkeyd keystore data key v1"
        case .v2: return "passkeyd keystore data key v2"
        }
    }
}
