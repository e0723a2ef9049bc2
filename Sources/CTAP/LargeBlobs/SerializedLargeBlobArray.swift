import CBOR
import Crypto

/// The serialized large-blob array (CTAP 2.1 §6.10.1): the CBOR array of large-blob maps
/// followed by LEFT(SHA-256(that CBOR), 16). The authenticator stores it opaquely and
/// checks only the trailing hash; what the entries mean is the platform's business.
public struct SerializedLargeBlobArray: Sendable, Hashable {
    /// Array bytes and hash, as stored and read.
    public let bytes: [UInt8]

    /// The hash takes the last 16 bytes, so anything shorter than the hash and one byte
    /// of CBOR cannot be a serialized array (§6.10.2 step 4.2.3).
    public static let minimumLength = 17
    static let hashLength = 16

    /// The initial value (§6.10.1): the empty CBOR array, 0x80, and its truncated hash.
    public static let initial = SerializedLargeBlobArray(array: [0x80])

    /// An array's CBOR bytes with their hash appended.
    public init(array: [UInt8]) {
        bytes = array + Self.truncatedHash(array)
    }

    /// Bytes the platform wrote: their last 16 bytes must be LEFT(SHA-256(the rest), 16),
    /// else `CTAP2_ERR_INTEGRITY_FAILURE` (§6.10.2 step 4.9.1). Compared in constant time.
    public init(validating bytes: [UInt8]) throws(CTAPStatus) {
        guard bytes.count >= Self.minimumLength else { throw .invalidParameter }
        let split = bytes.count - Self.hashLength
        guard ConstantTime.equals(Array(bytes[split...]), Self.truncatedHash(Array(bytes[..<split]))) else {
            throw .integrityFailure
        }
        self.bytes = bytes
    }

    /// The array's CBOR without its hash.
    public var array: [UInt8] { Array(bytes.dropLast(Self.hashLength)) }

    static func truncatedHash(_ array: [UInt8]) -> [UInt8] {
        Array(SHA256.hash(data: array).prefix(hashLength))
    }
}
