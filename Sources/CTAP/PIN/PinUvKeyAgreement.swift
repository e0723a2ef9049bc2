import Crypto

/// Conversions between COSE_Key and P-256 key agreement points (CTAP 2.1 §6.5.6 getPublicKey).
enum PinUvKeyAgreement {
    /// The point a peer sent. The spec asks for alg -25, but hosts differ on it, so only the
    /// curve and the point are checked; a point not on P-256 is `CTAP1_ERR_INVALID_PARAMETER`.
    static func publicKey(_ key: COSEKey) throws(CTAPStatus) -> P256.KeyAgreement.PublicKey {
        guard case .p256(let x, let y, _) = key, x.count == 32, y.count == 32 else { throw .invalidParameter }
        do {
            return try P256.KeyAgreement.PublicKey(x963Representation: [0x04] + x + y)
        } catch {
            throw .invalidParameter
        }
    }

    /// getPublicKey's encoding: EC2, P-256, alg -25 "although this is not the algorithm actually used".
    static func coseKey(_ key: P256.KeyAgreement.PublicKey) -> COSEKey {
        let point = Array(key.x963Representation)
        return .p256(x: Array(point[1..<33]), y: Array(point[33..<65]), algorithm: .ecdhESHKDF256)
    }
}
