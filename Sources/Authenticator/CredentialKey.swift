import CTAP
import Crypto
import Foundation

/// A credential private key of one of the supported algorithms.
struct CredentialKey: Sendable {
    let algorithm: COSEAlgorithm
    let rawRepresentation: [UInt8]

    /// Generates a fresh key; only signature algorithms are valid here.
    static func generate(_ algorithm: COSEAlgorithm) throws(CTAPStatus) -> CredentialKey {
        let raw: [UInt8]
        switch algorithm {
        case .es256: raw = Array(P256.Signing.PrivateKey().rawRepresentation)
        case .es384: raw = Array(P384.Signing.PrivateKey().rawRepresentation)
        case .es512: raw = Array(P521.Signing.PrivateKey().rawRepresentation)
        case .edDSA: raw = Array(Curve25519.Signing.PrivateKey().rawRepresentation)
        case .ecdhESHKDF256: throw .unsupportedAlgorithm
        }
        return CredentialKey(algorithm: algorithm, rawRepresentation: raw)
    }

    init(algorithm: COSEAlgorithm, rawRepresentation: [UInt8]) {
        self.algorithm = algorithm
        self.rawRepresentation = rawRepresentation
    }

    func publicKey() throws(CTAPStatus) -> COSEKey {
        do {
            switch algorithm {
            case .es256:
                let (x, y) = Self.coordinates(try P256.Signing.PrivateKey(rawRepresentation: rawRepresentation).publicKey.rawRepresentation)
                return .p256(x: x, y: y, algorithm: .es256)
            case .es384:
                let (x, y) = Self.coordinates(try P384.Signing.PrivateKey(rawRepresentation: rawRepresentation).publicKey.rawRepresentation)
                return .p384(x: x, y: y)
            case .es512:
                let (x, y) = Self.coordinates(try P521.Signing.PrivateKey(rawRepresentation: rawRepresentation).publicKey.rawRepresentation)
                return .p521(x: x, y: y)
            case .edDSA:
                return .ed25519(x: Array(try Curve25519.Signing.PrivateKey(rawRepresentation: rawRepresentation).publicKey.rawRepresentation))
            case .ecdhESHKDF256:
                throw CTAPStatus.unsupportedAlgorithm
            }
        } catch {
            throw .other
        }
    }

    /// Signs `message` as WebAuthn L3 §6.5.5 says: the ECDSA algorithms as DER signatures over
    /// SHA-256 / SHA-384 / SHA-512 of the message, EdDSA as the raw 64-byte Ed25519 signature.
    func sign(_ message: [UInt8]) throws(CTAPStatus) -> [UInt8] {
        do {
            switch algorithm {
            case .es256:
                return Array(try P256.Signing.PrivateKey(rawRepresentation: rawRepresentation).signature(for: message).derRepresentation)
            case .es384:
                return Array(try P384.Signing.PrivateKey(rawRepresentation: rawRepresentation).signature(for: message).derRepresentation)
            case .es512:
                return Array(try P521.Signing.PrivateKey(rawRepresentation: rawRepresentation).signature(for: message).derRepresentation)
            case .edDSA:
                return Array(try Curve25519.Signing.PrivateKey(rawRepresentation: rawRepresentation).signature(for: message))
            case .ecdhESHKDF256:
                throw CTAPStatus.unsupportedAlgorithm
            }
        } catch {
            throw .other
        }
    }

    /// The x and y halves of an uncompressed point without its prefix (swift-crypto's raw form).
    private static func coordinates(_ raw: some DataProtocol) -> ([UInt8], [UInt8]) {
        let bytes = Array(raw)
        return (Array(bytes[..<(bytes.count / 2)]), Array(bytes[(bytes.count / 2)...]))
    }
}
