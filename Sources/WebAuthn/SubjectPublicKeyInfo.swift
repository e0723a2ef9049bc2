import CTAP
import Crypto

extension COSEKey {
    /// The key as a DER SubjectPublicKeyInfo (RFC 5280 §4.1.2.7), the form
    /// `AuthenticatorAttestationResponse.getPublicKey()` returns (WebAuthn L3 §5.2.1.1);
    /// nil when the coordinates are not a point on the curve, and for RSA, ML-DSA and secp256k1 keys
    /// (and ARKG seeds), which WebAuthn lets a client leave to the attestation object (§5.2.1.1:
    /// the client may return null).
    public var subjectPublicKeyInfo: [UInt8]? {
        switch self {
        case .p256(let x, let y, _):
            guard let key = try? P256.Signing.PublicKey(rawRepresentation: x + y) else { return nil }
            return Array(key.derRepresentation)
        case .p384(let x, let y):
            return (try? P384.Signing.PublicKey(rawRepresentation: x + y)).map { Array($0.derRepresentation) }
        case .p521(let x, let y):
            return (try? P521.Signing.PublicKey(rawRepresentation: x + y)).map { Array($0.derRepresentation) }
        case .ed25519(let x):
            // RFC 8410 §4: SEQUENCE { SEQUENCE { OID 1.3.101.112 }, BIT STRING { 0 unused bits, key } }.
            return [0x30, 0x2A, 0x30, 0x05, 0x06, 0x03, 0x2B, 0x65, 0x70, 0x03, 0x21, 0x00] + x
        case .rsa, .mldsa, .secp256k1, .arkgP256:
            return nil
        }
    }
}
