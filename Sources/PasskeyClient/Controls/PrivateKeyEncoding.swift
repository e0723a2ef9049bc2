import CTAP
import Crypto

/// A credential private key between passkeyd's raw form and PKCS#8 DER (RFC 5208), the form
/// Chrome's virtual authenticator (CDP `WebAuthn.Credential.privateKey`) and the Credential
/// Exchange Format carry. RSA keys (RS256, PS256) have none here: passkeyd keeps n and d only,
/// and PKCS#8 needs the primes.
public enum PrivateKeyEncoding {
    /// Ed25519 in PKCS#8 (RFC 8410 §7): this fixed prefix, then the 32-byte seed.
    private static let ed25519Prefix: [UInt8] = [
        0x30, 0x2E, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2B, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20
    ]
    /// secp256k1 in PKCS#8 (RFC 5915 inside RFC 5208, curve OID 1.3.132.0.10, no public key):
    /// this prefix, then the 32-byte scalar.
    private static let secp256k1Prefix: [UInt8] = [
        0x30, 0x3E, 0x02, 0x01, 0x00, 0x30, 0x10, 0x06, 0x07, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01,
        0x06, 0x05, 0x2B, 0x81, 0x04, 0x00, 0x0A, 0x04, 0x27, 0x30, 0x25, 0x02, 0x01, 0x01, 0x04, 0x20
    ]

    /// ML-DSA in PKCS#8 as its seed (draft-ietf-lamps-dilithium-certificates, the `seed [0]`
    /// choice; OIDs 2.16.840.1.101.3.4.3.17/18/19): this prefix, then the 32-byte seed ξ.
    private static func mldsaPrefix(_ lastArc: UInt8) -> [UInt8] {
        [
            0x30, 0x34, 0x02, 0x01, 0x00, 0x30, 0x0B, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x03,
            lastArc,
            0x04, 0x22, 0x80, 0x20
        ]
    }

    /// The fixed PKCS#8 prefix of the algorithms whose raw form is 32 bytes after it.
    private static func prefix(_ algorithm: COSEAlgorithm?) -> [UInt8]? {
        switch algorithm {
        case .edDSA: ed25519Prefix
        case .es256K: secp256k1Prefix
        case .mldsa44: mldsaPrefix(0x11)
        case .mldsa65: mldsaPrefix(0x12)
        case .mldsa87: mldsaPrefix(0x13)
        default: nil
        }
    }

    /// PKCS#8 DER of a raw private key of COSE algorithm `algorithm`; nil for RSA, an unknown
    /// algorithm, or bytes that are not such a key.
    public static func pkcs8(raw: [UInt8], algorithm: Int) -> [UInt8]? {
        switch COSEAlgorithm(rawValue: algorithm) {
        case .es256: (try? P256.Signing.PrivateKey(rawRepresentation: raw)).map { Array($0.derRepresentation) }
        case .es384: (try? P384.Signing.PrivateKey(rawRepresentation: raw)).map { Array($0.derRepresentation) }
        case .es512: (try? P521.Signing.PrivateKey(rawRepresentation: raw)).map { Array($0.derRepresentation) }
        case let other:
            if let prefix = prefix(other), raw.count == 32 { prefix + raw } else { nil }
        }
    }

    /// The raw form of a PKCS#8 key (SEC 1 is accepted too for the ECDSA curves), or nil when
    /// it is not a key of `algorithm`.
    public static func raw(pkcs8 der: [UInt8], algorithm: Int) -> [UInt8]? {
        switch COSEAlgorithm(rawValue: algorithm) {
        case .es256: (try? P256.Signing.PrivateKey(derRepresentation: der)).map { Array($0.rawRepresentation) }
        case .es384: (try? P384.Signing.PrivateKey(derRepresentation: der)).map { Array($0.rawRepresentation) }
        case .es512: (try? P521.Signing.PrivateKey(derRepresentation: der)).map { Array($0.rawRepresentation) }
        case let other:
            if let prefix = prefix(other), der.count == prefix.count + 32, Array(der.prefix(prefix.count)) == prefix {
                Array(der.suffix(32))
            } else {
                nil
            }
        }
    }

    /// The COSE algorithm of a PKCS#8 key, by trying each supported key type.
    public static func algorithm(ofPKCS8 der: [UInt8]) -> Int? {
        [COSEAlgorithm.es256, .es384, .es512, .edDSA, .es256K, .mldsa44, .mldsa65, .mldsa87].first {
            raw(pkcs8: der, algorithm: $0.rawValue) != nil
        }?.rawValue
    }
}
