import CTAP
import Crypto

/// A credential private key of one of the supported algorithms.
struct CredentialKey: Sendable {
    let algorithm: COSEAlgorithm
    let rawRepresentation: [UInt8]

    /// Generates a fresh key; only signature algorithms are valid here.
    static func generate(_ algorithm: COSEAlgorithm) throws(CTAPStatus) -> CredentialKey {
        switch algorithm {
        case .es256:
            return CredentialKey(algorithm: algorithm, rawRepresentation: Array(P256.Signing.PrivateKey().rawRepresentation))
        case .edDSA:
            return CredentialKey(algorithm: algorithm, rawRepresentation: Array(Curve25519.Signing.PrivateKey().rawRepresentation))
        case .ecdhESHKDF256:
            throw .unsupportedAlgorithm
        }
    }

    init(algorithm: COSEAlgorithm, rawRepresentation: [UInt8]) {
        self.algorithm = algorithm
        self.rawRepresentation = rawRepresentation
    }

    func publicKey() throws(CTAPStatus) -> COSEKey {
        do {
            switch algorithm {
            case .es256:
                let raw = Array(try P256.Signing.PrivateKey(rawRepresentation: rawRepresentation).publicKey.rawRepresentation)
                return .p256(x: Array(raw[0..<32]), y: Array(raw[32..<64]), algorithm: .es256)
            case .edDSA:
                return .ed25519(x: Array(try Curve25519.Signing.PrivateKey(rawRepresentation: rawRepresentation).publicKey.rawRepresentation))
            case .ecdhESHKDF256:
                throw CTAPStatus.unsupportedAlgorithm
            }
        } catch {
            throw .other
        }
    }

    /// Signs `message`: ES256 as a DER ECDSA signature over SHA-256 (WebAuthn L3 §6.5.5),
    /// EdDSA as the raw 64-byte Ed25519 signature.
    func sign(_ message: [UInt8]) throws(CTAPStatus) -> [UInt8] {
        do {
            switch algorithm {
            case .es256:
                return Array(try P256.Signing.PrivateKey(rawRepresentation: rawRepresentation).signature(for: message).derRepresentation)
            case .edDSA:
                return Array(try Curve25519.Signing.PrivateKey(rawRepresentation: rawRepresentation).signature(for: message))
            case .ecdhESHKDF256:
                throw CTAPStatus.unsupportedAlgorithm
            }
        } catch {
            throw .other
        }
    }
}
