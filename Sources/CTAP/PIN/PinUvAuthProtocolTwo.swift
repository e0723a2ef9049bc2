import Crypto
import CryptoExtras

/// PIN/UV auth protocol two (CTAP 2.1 §6.5.8): HKDF-derived HMAC and AES keys,
/// AES-256-CBC with a random IV sent in front, and full 32-byte MACs.
public struct PinUvAuthProtocolTwo: PinUvAuthProtocol {
    static let salt = [UInt8](repeating: 0, count: 32)
    static let hmacKeyInfo = Array("CTAP2 HMAC key".utf8)
    static let aesKeyInfo = Array("CTAP2 AES key".utf8)

    public init() {}

    public var version: PinUvAuthProtocolVersion { .two }

    /// kdf(Z) = HKDF-SHA-256(Z, 32 zero bytes, "CTAP2 HMAC key", 32) || HKDF-SHA-256(Z, 32 zero bytes, "CTAP2 AES key", 32).
    public func kdf(_ z: SymmetricKey) -> SymmetricKey {
        let hmacKey = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: z, salt: Self.salt, info: Self.hmacKeyInfo, outputByteCount: 32)
        let aesKey = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: z, salt: Self.salt, info: Self.aesKeyInfo, outputByteCount: 32)
        var both: [UInt8] = []
        both.reserveCapacity(64)
        hmacKey.withUnsafeBytes { both.append(contentsOf: $0) }
        aesKey.withUnsafeBytes { both.append(contentsOf: $0) }
        defer { both.withUnsafeMutableBytes { _ = $0.initializeMemory(as: UInt8.self, repeating: 0) } }
        return SymmetricKey(data: both)
    }

    /// A random IV followed by AES-256-CBC(AES key, IV, plaintext).
    public func encrypt(key: SymmetricKey, plaintext: [UInt8]) throws(CTAPStatus) -> [UInt8] {
        try encrypt(key: key, plaintext: plaintext, iv: Array(AES._CBC.IV()))
    }

    /// `encrypt(key:plaintext:)` with a chosen IV, for known-answer tests.
    func encrypt(key: SymmetricKey, plaintext: [UInt8], iv: [UInt8]) throws(CTAPStatus) -> [UInt8] {
        guard key.bitCount == 512 else { throw .invalidParameter }
        return iv + (try AESCBC.encrypt(key: key.subkey(32..<64), iv: iv, plaintext: plaintext))
    }

    /// Splits off the 16-byte IV and decrypts the rest with the AES key.
    public func decrypt(key: SymmetricKey, ciphertext: [UInt8]) throws(CTAPStatus) -> [UInt8] {
        guard key.bitCount == 512, ciphertext.count >= AESCBC.blockSize else { throw .invalidParameter }
        let iv = Array(ciphertext.prefix(AESCBC.blockSize))
        return try AESCBC.decrypt(key: key.subkey(32..<64), iv: iv, ciphertext: ciphertext.dropFirst(AESCBC.blockSize))
    }

    /// HMAC-SHA-256(key, message). A 64-byte shared secret contributes only its HMAC key
    /// (the first 32 bytes); a pinUvAuthToken is used whole, as §6.5.8 says.
    public func authenticate(key: SymmetricKey, message: [UInt8]) -> [UInt8] {
        let hmacKey = key.bitCount > 256 ? key.subkey(0..<32) : key
        return Array(HMAC<SHA256>.authenticationCode(for: message, using: hmacKey))
    }
}
