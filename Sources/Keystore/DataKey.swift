import Crypto
import Foundation

/// The random 256-bit key every record is sealed under (through `RecordSealer`'s
/// subkeys). It exists on disk only wrapped: AES-256-GCM under the key-encryption
/// key, with the store ID and the key protection as associated data.
struct DataKey: Sendable {
    let key: SymmetricKey

    static func generate() -> DataKey { DataKey(key: SymmetricKey(size: .bits256)) }

    static func context(storeID: [UInt8], protection: KeyProtection) -> [UInt8] {
        Array("passkeyd keystore data key v1".utf8) + [0] + storeID + protection.descriptor
    }

    func wrapped(under keyEncryptionKey: SymmetricKey, storeID: [UInt8], protection: KeyProtection) throws -> Data {
        let context = Self.context(storeID: storeID, protection: protection)
        let box = try key.withUnsafeBytes { bytes in
            try AES.GCM.seal(Data(bytes), using: keyEncryptionKey, authenticating: context)
        }
        return box.combined!
    }

    /// Unwraps the data key; nil when the key-encryption key is not the one it was
    /// wrapped under (or the header was altered). The GCM tag is the check value.
    static func unwrap(_ wrapped: Data, under keyEncryptionKey: SymmetricKey, storeID: [UInt8], protection: KeyProtection) -> DataKey? {
        guard let box = try? AES.GCM.SealedBox(combined: wrapped),
              var bytes = try? AES.GCM.open(box, using: keyEncryptionKey, authenticating: context(storeID: storeID, protection: protection)),
              bytes.count == 32
        else { return nil }
        defer { bytes.resetBytes(in: 0..<bytes.count) }
        return DataKey(key: SymmetricKey(data: bytes))
    }
}
