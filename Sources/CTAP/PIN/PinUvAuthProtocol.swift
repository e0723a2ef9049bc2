import Crypto

/// A PIN/UV auth protocol (CTAP 2.1 §6.5.6, "PIN/UV Auth Protocol Abstract Definition"):
/// the key derivation, encryption and MAC both the authenticator and the platform run.
///
/// Conforming types are stateless; the authenticator's key agreement key lives in
/// `PinUvAuthenticatorKeyAgreement`. Keys are `SymmetricKey` so secrets are zeroed on
/// release and never print.
public protocol PinUvAuthProtocol: Sendable {
    /// The `pinUvAuthProtocol` number on the wire.
    var version: PinUvAuthProtocolVersion { get }

    /// kdf(Z): the shared secret from Z, the x-coordinate of the ECDH result.
    func kdf(_ z: SymmetricKey) -> SymmetricKey

    /// encrypt(key, demPlaintext). `plaintext` must be a whole number of AES blocks:
    /// CTAP never pads (§6.5.7, §6.5.8); otherwise `CTAP1_ERR_INVALID_PARAMETER`.
    func encrypt(key: SymmetricKey, plaintext: [UInt8]) throws(CTAPStatus) -> [UInt8]

    /// decrypt(key, demCiphertext); malformed ciphertext is `CTAP1_ERR_INVALID_PARAMETER`.
    func decrypt(key: SymmetricKey, ciphertext: [UInt8]) throws(CTAPStatus) -> [UInt8]

    /// authenticate(key, message). `key` is either a shared secret or a pinUvAuthToken.
    func authenticate(key: SymmetricKey, message: [UInt8]) -> [UInt8]
}

extension PinUvAuthProtocol {
    /// verify(key, message, signature): succeeds only when `signature` is exactly
    /// `authenticate(key, message)`, compared in constant time; otherwise
    /// `CTAP2_ERR_PIN_AUTH_INVALID`, the status the command steps assign to a bad pinUvAuthParam.
    public func verify(key: SymmetricKey, message: [UInt8], signature: [UInt8]) throws(CTAPStatus) {
        guard ConstantTime.equals(authenticate(key: key, message: message), signature) else {
            throw .pinAuthInvalid
        }
    }

    /// encapsulate(peerCoseKey), the platform's step: a fresh ephemeral key pair, ECDH with
    /// the authenticator's key from getKeyAgreement, and the shared secret from kdf.
    /// An off-curve or non-P-256 peer key is `CTAP1_ERR_INVALID_PARAMETER`.
    public func encapsulate(peerKey: COSEKey) throws(CTAPStatus) -> (
        platformKeyAgreement: COSEKey, sharedSecret: SymmetricKey
    ) {
        try encapsulate(peerKey: peerKey, platformKey: P256.KeyAgreement.PrivateKey())
    }

    /// `encapsulate(peerKey:)` with a chosen platform key, for known-answer tests.
    func encapsulate(peerKey: COSEKey, platformKey: P256.KeyAgreement.PrivateKey) throws(CTAPStatus) -> (
        platformKeyAgreement: COSEKey, sharedSecret: SymmetricKey
    ) {
        let secret = try ecdh(privateKey: platformKey, peerKey: peerKey)
        return (PinUvKeyAgreement.coseKey(platformKey.publicKey), secret)
    }

    /// ecdh(peerCoseKey) of §6.5.6: Z is the x-coordinate of the shared point, then kdf(Z).
    func ecdh(privateKey: P256.KeyAgreement.PrivateKey, peerKey: COSEKey) throws(CTAPStatus) -> SymmetricKey {
        let peer = try PinUvKeyAgreement.publicKey(peerKey)
        let z: SharedSecret
        do { z = try privateKey.sharedSecretFromKeyAgreement(with: peer) } catch { throw .invalidParameter }
        return kdf(SymmetricKey(data: z))
    }
}
