import Crypto

/// The PIN as both ends handle it (CTAP 2.1 §6.5.5.5–§6.5.5.7): the platform sends it
/// padded and proves it by LEFT(SHA-256(PIN), 16); the authenticator keeps only that hash.
public enum PINHash {
    public static let length = 16
    /// paddedNewPin is exactly 64 bytes (§6.5.5.5 step 7).
    public static let paddedLength = 64
    /// A PIN is at most 63 bytes, so at least one 0x00 of padding remains.
    public static let maxPINBytes = 63

    /// LEFT(SHA-256(pin), 16) of the PIN's UTF-8 bytes.
    public static func of(_ pin: [UInt8]) -> [UInt8] {
        Array(SHA256.hash(data: pin).prefix(length))
    }

    public static func of(_ pin: String) -> [UInt8] {
        of(Array(pin.utf8))
    }

    /// The PIN's UTF-8 bytes zero-padded to 64 (§6.5.5.5); nil when it is longer than 63 bytes.
    public static func padded(_ pin: String) -> [UInt8]? {
        let bytes = Array(pin.utf8)
        guard bytes.count <= maxPINBytes else { return nil }
        return bytes + [UInt8](repeating: 0, count: paddedLength - bytes.count)
    }
}
