import CBOR
import Crypto
import Foundation

/// One large-blob map of the large-blob array (CTAP 2.1 §6.10.3): a blob compressed with
/// DEFLATE (RFC 1951) and sealed with AES-256-GCM under its credential's largeBlobKey. The
/// authenticator never reads these; platforms do, and skip entries they cannot open.
public struct LargeBlob: CTAPStructure, Sendable, Hashable {
    enum CodingKeys: Int, CodingKey {
        case ciphertext = 0x01
        case nonce, origSize
    }

    /// The sealed compressed blob followed by its 16-byte authentication tag.
    public var ciphertext: [UInt8]
    /// 12 random bytes.
    public var nonce: [UInt8]
    /// The blob's length before compression; required.
    @Unsigned public var origSize: Int?

    static let nonceLength = 12
    static let tagLength = 16

    public func validate() throws(CTAPStatus) {
        guard origSize != nil else { throw .missingParameter }
    }

    /// Seals `compressed` under `key` with a fresh nonce (§6.10.3 steps for writing).
    public init(sealing compressed: [UInt8], originalSize: Int, key: [UInt8]) throws(CTAPStatus) {
        let nonce = AES.GCM.Nonce()
        do {
            let box = try AES.GCM.seal(
                compressed, using: SymmetricKey(data: key), nonce: nonce,
                authenticating: Self.associatedData(originalSize))
            ciphertext = Array(box.ciphertext) + Array(box.tag)
        } catch {
            throw .invalidParameter
        }
        self.nonce = Array(nonce)
        origSize = originalSize
    }

    /// The compressed blob, or nil when `key` is not this entry's key (§6.10.3: a platform
    /// tries each entry and takes the one that authenticates).
    public func open(key: [UInt8]) -> [UInt8]? {
        guard key.count == 32, nonce.count == Self.nonceLength, ciphertext.count >= Self.tagLength,
            let nonce = try? AES.GCM.Nonce(data: nonce),
            let box = try? AES.GCM.SealedBox(
                nonce: nonce, ciphertext: ciphertext.dropLast(Self.tagLength),
                tag: ciphertext.suffix(Self.tagLength)),
            let origSize,
            let plain = try? AES.GCM.open(
                box, using: SymmetricKey(data: key), authenticating: Self.associatedData(origSize))
        else { return nil }
        return Array(plain)
    }

    /// "blob" ‖ uint64LittleEndian(origSize).
    static func associatedData(_ originalSize: Int) -> [UInt8] {
        Array("blob".utf8) + (0..<8).map { UInt8(truncatingIfNeeded: UInt64(originalSize) >> (8 * $0)) }
    }
}

extension SerializedLargeBlobArray {
    /// The array's entries as CBOR: large-blob maps and whatever else platforms put there,
    /// which a rewrite keeps. Nil when the bytes under a valid hash are not a CBOR array.
    public var entries: [CBORValue]? {
        (try? CBORDecoder.decode(array))?.arrayValue
    }

    /// An array of these entries, with its hash.
    public init(entries: [CBORValue]) {
        self.init(array: CBORValue.array(entries).encoded)
    }
}
