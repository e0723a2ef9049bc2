import CTAP
import Crypto

/// A credential private key between passkeyd's raw form and PKCS#8 DER (RFC 5208), the form
/// Chrome's virtual authenticator (CDP `WebAuthn.Credential.privateKey`) and the Credential
/// Exchange Format carry.
public enum PrivateKeyEncoding {
    /// Ed25519 in PKCS#8 (RFC 8410 §7): this fixed prefix, then the 32-byte seed.
    private static let ed25519Prefix: [UInt8] = [0x30, 0x2E, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2B, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20]

    public static func pkcs8(raw: [UInt8], algorithm: Int) -> [UInt8]? {
        switch COSEAlgorithm(rawValue: algorithm) {
        case .es256: (try? P256.Signing.PrivateKey(rawRepresentation: raw)).map { Array($0.derRepresentation) }
        case .es384: (try? P384.Signing.PrivateKey(rawRepresentation: raw)).map { Array($0.derRepresentation) }
        case .es512: (try? P521.Signing.PrivateKey(rawRepresentation: raw)).map { Array($0.derRepresentation) }
        case .edDSA: raw.count == 32 ? ed25519Prefix + raw : nil
        default: nil
        }
    }

    /// The raw form of a PKCS#8 key (SEC 1 is accepted too for the ECDSA curves), or nil when
    /// it is not a key of `algorithm`.
    public static func raw(pkcs8 der: [UInt8], algorithm: Int) -> [UInt8]? {
        switch COSEAlgorithm(rawValue: algorithm) {
        case .es256: (try? P256.Signing.PrivateKey(derRepresentation: der)).map { Array($0.rawRepresentation) }
        case .es384: (try? P384.Signing.PrivateKey(derRepresentation: der)).map { Array($0.rawRepresentation) }
        case .es512: (try? P521.Signing.PrivateKey(derRepresentation: der)).map { Array($0.rawRepresentation) }
        case .edDSA: der.count == 48 && Array(der.prefix(16)) == ed25519Prefix ? Array(der.suffix(32)) : nil
        default: nil
        }
    }

    /// The COSE algorithm of a PKCS#8 key, by trying each supported key type.
    public static func algorithm(ofPKCS8 der: [UInt8]) -> Int? {
        [COSEAlgorithm.es256, .es384, .es512, .edDSA].first { raw(pkcs8: der, algorithm: $0.rawValue) != nil }?.rawValue
    }
}
