import Crypto

/// The authenticator's side of one PIN/UV auth protocol: its key agreement key
/// (CTAP 2.1 §6.5.6 initialize, regenerate, getPublicKey, decapsulate).
///
/// A value type: the `Authenticator` actor owns one per supported protocol and
/// replaces the key on `regenerate()` (after a PIN mismatch, §6.5.5.7) and on reset.
public struct PinUvAuthenticatorKeyAgreement: Sendable {
    public let authProtocol: any PinUvAuthProtocol
    private var privateKey: P256.KeyAgreement.PrivateKey

    /// initialize(): a fresh key agreement key, as at power-on.
    public init(protocol version: PinUvAuthProtocolVersion) {
        self.init(protocol: version.implementation, privateKey: P256.KeyAgreement.PrivateKey())
    }

    /// A chosen key, for known-answer tests.
    init(protocol authProtocol: any PinUvAuthProtocol, privateKey: P256.KeyAgreement.PrivateKey) {
        self.authProtocol = authProtocol
        self.privateKey = privateKey
    }

    /// regenerate(): replaces the key agreement key, invalidating every shared secret made with the old one.
    public mutating func regenerate() {
        privateKey = P256.KeyAgreement.PrivateKey()
    }

    /// getPublicKey(): the key agreement key as a COSE_Key for getKeyAgreement's response.
    public func getPublicKey() -> COSEKey {
        PinUvKeyAgreement.coseKey(privateKey.publicKey)
    }

    /// decapsulate(peerCoseKey): the shared secret with the platform key from the request's
    /// `keyAgreement`. An off-curve or non-P-256 peer key is `CTAP1_ERR_INVALID_PARAMETER`.
    public func decapsulate(peerKey: COSEKey) throws(CTAPStatus) -> SymmetricKey {
        try authProtocol.ecdh(privateKey: privateKey, peerKey: peerKey)
    }
}
