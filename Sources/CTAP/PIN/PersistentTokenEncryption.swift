import Crypto

/// getInfo's encIdentifier and encCredStoreState (CTAP 2.2 §6.4): a value only the holder of
/// the persistent pinUvAuthToken can read. The key is HKDF-SHA-256(salt: 32 zero bytes,
/// IKM: the token, info: the member's name, 16 bytes); the value is IV ‖ AES-128-CBC(IV, plaintext).
public enum PersistentTokenEncryption {
    public enum Purpose: String, Sendable {
        case encIdentifier
        case encCredStoreState
    }

    /// `plaintext` (a whole number of 16-byte blocks) encrypted to `token` under a fresh IV.
    public static func encrypt(
        _ plaintext: [UInt8], token: [UInt8], for purpose: Purpose,
        iv: [UInt8] = SecureRandom.bytes(16)
    ) throws(CTAPStatus) -> [UInt8] {
        iv + (try AESCBC.encrypt(key: key(token: token, purpose), iv: iv, plaintext: plaintext))
    }

    /// The inverse, as a platform reads the member.
    public static func decrypt(_ encrypted: [UInt8], token: [UInt8], for purpose: Purpose) throws(CTAPStatus) -> [UInt8]
    {
        guard encrypted.count > AESCBC.blockSize else { throw .invalidParameter }
        return try AESCBC.decrypt(
            key: key(token: token, purpose), iv: Array(encrypted.prefix(AESCBC.blockSize)),
            ciphertext: encrypted.dropFirst(AESCBC.blockSize))
    }

    private static func key(token: [UInt8], _ purpose: Purpose) -> SymmetricKey {
        HKDF<SHA256>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: token), salt: [UInt8](repeating: 0, count: 32),
            info: Array(purpose.rawValue.utf8), outputByteCount: 16)
    }
}
