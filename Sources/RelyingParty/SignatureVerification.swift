import Crypto
import CTAP

extension COSEKey {
    /// Verifies a WebAuthn signature (WebAuthn L3 §6.3.3, §6.5.6) over `data` = authData || clientDataHash:
    /// ES256 is a DER ECDSA signature over SHA-256 with P-256; EdDSA is a raw Ed25519 signature.
    func verifies(_ signature: [UInt8], over data: [UInt8]) throws(VerificationError) -> Bool {
        switch self {
        case .p256(let x, let y, let algorithm):
            guard algorithm == .es256, let key = try? P256.Signing.PublicKey(rawRepresentation: x + y) else {
                throw .unusablePublicKey
            }
            guard let ecdsa = try? P256.Signing.ECDSASignature(derRepresentation: signature) else { return false }
            return key.isValidSignature(ecdsa, for: data)
        case .ed25519(let x):
            guard let key = try? Curve25519.Signing.PublicKey(rawRepresentation: x) else { throw .unusablePublicKey }
            return key.isValidSignature(signature, for: data)
        }
    }
}
