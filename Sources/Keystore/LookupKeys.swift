import Crypto
import Foundation

/// The keyed hashes rows are found by: HMAC-SHA-256 under a subkey of the data key.
/// Without the key they reveal neither RP IDs, user handles nor credential IDs, and
/// do not link one RP's rows to another's. Each input carries a distinct label.
struct LookupKeys: Sendable {
    /// HMAC with the key already absorbed: each hash starts from a copy, so the key's pads
    /// are not hashed again for every lookup (four hashes per assertion).
    private let keyed: HMAC<SHA256>

    init(key: SymmetricKey) { keyed = HMAC<SHA256>(key: key) }

    /// The RP ID's hash: the indexed column of `credentials(rpID:)`.
    func rp(_ rpID: String) -> Data {
        mac(label: "rp", Array(rpID.utf8))
    }

    /// The user handle's hash, bound to the RP so one handle at two RPs gives two unrelated values.
    func user(rpID: String, handle: [UInt8]) -> Data {
        let rp = Array(rpID.utf8)
        var length = [UInt8](repeating: 0, count: 4)
        withUnsafeBytes(of: UInt32(rp.count).bigEndian) { length = Array($0) }
        return mac(label: "user", length + rp + handle)
    }

    /// The credential ID's hash. The raw ID is not stored: an RP keeps credential IDs in
    /// the clear, so storing them would let a stolen keystore be matched against an RP's database.
    func credential(_ id: [UInt8]) -> Data {
        mac(label: "credential", id)
    }

    private func mac(label: String, _ message: [UInt8]) -> Data {
        var hmac = keyed
        hmac.update(data: Array(label.utf8) + [0])
        hmac.update(data: message)
        return Data(hmac.finalize())
    }
}
