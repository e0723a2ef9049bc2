import Crypto
import Foundation

/// The random 256-bit key every record is sealed under (through `RecordSealer`'s
/// subkeys). It exists on disk only wrapped: AES-256-GCM under the key-encryption
/// key, with the keystore format, the store ID and the key protection as associated data.
struct DataKey: Sendable {
    let key: SymmetricKey

    static func generate() -> DataKey { DataKey(key: SymmetricKey(size: .bits256)) }

    static func context(storeID: [UInt8], protection: KeyProtection, format: KeystoreFormat) -> [UInt8] {
        Array(format.dataKeyLabel.utf8) + [0] + storeID + protection.descriptor
    }

    func wrapped(
        under keyEncryptionKey: SymmetricKey, storeID: [UInt8], protection: KeyProtection,
        format: KeystoreFormat = .current
    ) throws -> Data {
        let context = Self.context(storeID: storeID, protection: protection, format: format)
        let box = try key.withUnsafeBytes { bytes in
            try AES.GCM.seal(Data(bytes), using: keyEncryptionKey, authenticating: context)
        }
        return box.combined!
    }

    /// Unwraps the data key and learns the format it was wrapped for; nil when the
    /// key-encryption key is not the one it was wrapped under (or the header was altered).
    /// The GCM tag is the check value.
    static func unwrap(
        _ wrapped: Data, under keyEncryptionKey: SymmetricKey, storeID: [UInt8], protection: KeyProtection
    ) -> (key: DataKey, format: KeystoreFormat)? {
        guard let box = try? AES.GCM.SealedBox(combined: wrapped) else { return nil }
        for format in KeystoreFormat.allCases.reversed() {
            let context = context(storeID: storeID, protection: protection, format: format)
            guard var bytes = try? AES.GCM.open(box, using: keyEncryptionKey, authenticating: context) else { continue }
            defer { bytes.resetBytes(in: 0..<bytes.count) }
            guard bytes.count == 32 else { return nil }
            return (DataKey(key: SymmetricKey(data: bytes)), format)
        }
        return nil
    }
}
