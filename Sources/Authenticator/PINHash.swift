import CTAP
import Crypto

/// The PIN as the authenticator keeps it and checks it (CTAP 2.1 §6.5.5.5–§6.5.5.7):
/// only LEFT(SHA-256(PIN), 16), compared in constant time.
enum PINHash {
    static let length = 16
    /// paddedNewPin is exactly 64 bytes (§6.5.5.5 step 7).
    static let paddedLength = 64
    /// A PIN is at most 63 bytes, so at least one 0x00 of padding remains.
    static let maxPINBytes = 63

    static func of(_ pin: [UInt8]) -> [UInt8] {
        Array(SHA256.hash(data: pin).prefix(length))
    }

    /// Comparison whose time depends only on the lengths.
    static func equals(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        ConstantTime.equals(a, b)
    }
}
