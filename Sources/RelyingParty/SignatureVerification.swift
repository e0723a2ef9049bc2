import CTAP
import Crypto
import CryptoExtras
import MLDSA
import Secp256k1

extension COSEKey {
    /// Verifies a WebAuthn signature (WebAuthn L3 §6.3.3, §6.5.6) over `data` = authData || clientDataHash:
    /// ES256/ES384/ES512 are DER ECDSA signatures over SHA-256/384/512 with P-256/384/521;
    /// ES256K a DER ECDSA signature over SHA-256 on secp256k1 (RFC 8812 §3.2);
    /// EdDSA is a raw Ed25519 signature; RS256 / PS256 are RSASSA-PKCS1-v1_5 / RSASSA-PSS over SHA-256
    /// (RFC 8812 §2, RFC 8230 §2); ML-DSA-44 / -65 / -87 pure FIPS 204 signatures with an empty context.
    func verifies(_ signature: [UInt8], over data: [UInt8]) throws(VerificationError) -> Bool {
        switch self {
        case .p256(let x, let y, let algorithm):
            guard algorithm == .es256, let key = try? P256.Signing.PublicKey(rawRepresentation: x + y) else {
                throw .unusablePublicKey
            }
            guard let ecdsa = try? P256.Signing.ECDSASignature(derRepresentation: signature) else { return false }
            return key.isValidSignature(ecdsa, for: data)
        case .p384(let x, let y):
            guard let key = try? P384.Signing.PublicKey(rawRepresentation: x + y) else { throw .unusablePublicKey }
            guard let ecdsa = try? P384.Signing.ECDSASignature(derRepresentation: signature) else { return false }
            return key.isValidSignature(ecdsa, for: data)
        case .p521(let x, let y):
            guard let key = try? P521.Signing.PublicKey(rawRepresentation: x + y) else { throw .unusablePublicKey }
            guard let ecdsa = try? P521.Signing.ECDSASignature(derRepresentation: signature) else { return false }
            return key.isValidSignature(ecdsa, for: data)
        case .ed25519(let x):
            guard let key = try? Curve25519.Signing.PublicKey(rawRepresentation: x) else { throw .unusablePublicKey }
            return key.isValidSignature(signature, for: data)
        case .secp256k1(let x, let y):
            guard let valid = try? Secp256k1.isValidSignature(signature, for: data, publicKey: x + y) else {
                throw .unusablePublicKey
            }
            return valid
        case .rsa(let n, let e, let algorithm):
            // swift-crypto refuses moduli under 2048 bits, as RFC 8230 §6 advises.
            guard let key = try? _RSA.Signing.PublicKey(n: n, e: e) else { throw .unusablePublicKey }
            let padding: _RSA.Signing.Padding = algorithm == .rs256 ? .insecurePKCS1v1_5 : .PSS
            return key.isValidSignature(
                _RSA.Signing.RSASignature(rawRepresentation: signature), for: data, padding: padding)
        case .mldsa(let publicKey, .mldsa44):
            guard let key = try? MLDSAPublicKey(rawRepresentation: publicKey, parameters: .mldsa44) else {
                throw .unusablePublicKey
            }
            return key.isValidSignature(signature, for: data)
        case .mldsa(let publicKey, .mldsa65):
            guard let key = try? MLDSA65.PublicKey(rawRepresentation: publicKey) else { throw .unusablePublicKey }
            return key.isValidSignature(signature, for: data)
        case .mldsa(let publicKey, .mldsa87):
            guard let key = try? MLDSA87.PublicKey(rawRepresentation: publicKey) else { throw .unusablePublicKey }
            return key.isValidSignature(signature, for: data)
        case .mldsa, .arkgP256:
            // An ARKG public seed is not a verification key (draft-bradleylundberg-cfrg-arkg-10 §5.1).
            throw .unusablePublicKey
        }
    }
}
