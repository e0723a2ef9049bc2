import Crypto
import CryptoExtras
import Foundation

/// AES-256-CBC without padding, as both PIN/UV auth protocols use it (CTAP 2.1 §6.5.7, §6.5.8);
/// AES-128 for getInfo's values encrypted to the persistent token (CTAP 2.2 §6.4).
enum AESCBC {
    static let blockSize = 16

    static func encrypt(key: SymmetricKey, iv: [UInt8], plaintext: [UInt8]) throws(CTAPStatus) -> [UInt8] {
        guard [128, 256].contains(key.bitCount), plaintext.count % blockSize == 0 else { throw .invalidParameter }
        do {
            return Array(try AES._CBC.encrypt(plaintext, using: key, iv: AES._CBC.IV(ivBytes: iv), noPadding: true))
        } catch {
            throw .invalidParameter
        }
    }

    static func decrypt(key: SymmetricKey, iv: [UInt8], ciphertext: ArraySlice<UInt8>) throws(CTAPStatus) -> [UInt8] {
        guard [128, 256].contains(key.bitCount), ciphertext.count % blockSize == 0 else { throw .invalidParameter }
        do {
            return Array(try AES._CBC.decrypt(ciphertext, using: key, iv: AES._CBC.IV(ivBytes: iv), noPadding: true))
        } catch {
            throw .invalidParameter
        }
    }
}

extension SymmetricKey {
    /// The key made of bytes `range` of this one; used to split protocol two's 64-byte secret.
    func subkey(_ range: Range<Int>) -> SymmetricKey {
        withUnsafeBytes { SymmetricKey(data: UnsafeRawBufferPointer(rebasing: $0[range])) }
    }
}
