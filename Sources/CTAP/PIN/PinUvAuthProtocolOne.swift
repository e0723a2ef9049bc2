import Crypto

/// PIN/UV auth protocol one (CTAP 2.1 §6.5.7): SHA-256 of Z as the single key,
/// AES-256-CBC with an all-zero IV, and MACs truncated to 16 bytes.
public struct PinUvAuthProtocolOne: PinUvAuthProtocol {
    static let zeroIV = [UInt8](repeating: 0, count: AESCBC.blockSize)

    public init() {}

    public var version: PinUvAuthProtocolVersion { .one }

    /// kdf(Z) = SHA-256(Z).
    public func kdf(_ z: SymmetricKey) -> SymmetricKey {
        z.withUnsafeBytes { SymmetricKey(data: SHA256.hash(data: $0)) }
    }

    public func encrypt(key: SymmetricKey, plaintext: [UInt8]) throws(CTAPStatus) -> [UInt8] {
        try AESCBC.encrypt(key: key, iv: Self.zeroIV, plaintext: plaintext)
    }

    public func decrypt(key: SymmetricKey, ciphertext: [UInt8]) throws(CTAPStatus) -> [UInt8] {
        try AESCBC.decrypt(key: key, iv: Self.zeroIV, ciphertext: ciphertext[...])
    }

    /// The first 16 bytes of HMAC-SHA-256(key, message); the whole key is used, whether
    /// a 32-byte shared secret or a pinUvAuthToken.
    public func authenticate(key: SymmetricKey, message: [UInt8]) -> [UInt8] {
        Array(HMAC<SHA256>.authenticationCode(for: message, using: key).prefix(16))
    }
}
