import CTAP
import Crypto
import PasskeydMacros

/// The delegating party's side of ARKG-P256 (draft-bradleylundberg-cfrg-arkg-10 §4.1): a private
/// seed whose public seed an RP derives P-256 public keys from, and the derivation of the private
/// key for one of those keys from its key handle. BL is elliptic-curve addition (§3.1) and KEM
/// is ECDH on P-256 with the HMAC integrity adapter (§3.3, §3.2), both with DST_ext 'ARKG-P256'.
@MemberwiseInit
struct ARKGP256PrivateSeed: Sendable {
    let blinding: P256.Signing.PrivateKey
    let encapsulation: P256.KeyAgreement.PrivateKey

    /// sk_bl ‖ sk_kem, 32 bytes each: what a previewSign key handle seals.
    static let rawLength = 64
    /// ctx may hold at most 64 bytes (§2.4).
    static let maximumContextLength = 64
    /// A key handle is the KEM ciphertext: a 16-byte HMAC tag and an uncompressed point (§3.2, §3.3).
    static let keyHandleLength = 16 + 65

    private static let dstExt = Array("ARKG-P256".utf8)
    /// DST_aug of the ECDH KEM (§3.3), the DST_ext of its HMAC adapter.
    private static let kemDST = Array("ARKG-ECDH.".utf8) + dstExt

    /// ARKG-Derive-Seed's nondeterministic variant (§2.2.1): both key pairs from fresh randomness.
    static func generate() -> ARKGP256PrivateSeed {
        ARKGP256PrivateSeed(blinding: P256.Signing.PrivateKey(), encapsulation: P256.KeyAgreement.PrivateKey())
    }

    init(rawRepresentation raw: [UInt8]) throws(CTAPStatus) {
        guard raw.count == Self.rawLength,
            let blinding = try? P256.Signing.PrivateKey(rawRepresentation: raw.prefix(32)),
            let encapsulation = try? P256.KeyAgreement.PrivateKey(rawRepresentation: raw.suffix(32))
        else { throw .invalidCredential }
        self.init(blinding: blinding, encapsulation: encapsulation)
    }

    var rawRepresentation: [UInt8] {
        Array(blinding.rawRepresentation) + Array(encapsulation.rawRepresentation)
    }

    /// The public seed (pk_bl, pk_kem) as its COSE key, restricted to ESP256 derived keys (§5.1).
    var publicSeed: ARKGPublicSeed {
        ARKGPublicSeed(
            blindingKey: Array(blinding.publicKey.rawRepresentation),
            encapsulationKey: Array(encapsulation.publicKey.rawRepresentation),
            derivedKeyAlgorithm: .esp256)
    }

    /// ARKG-Derive-Private-Key (§2.4). A ctx over 64 bytes, a key handle this seed did not make
    /// for this ctx (the KEM's tag does not match), or a derived key of 0 is
    /// `CTAP2_ERR_INVALID_CREDENTIAL`: the handle names no key of this device.
    func derivePrivateKey(keyHandle: [UInt8], context: [UInt8]) throws(CTAPStatus) -> P256.Signing.PrivateKey {
        guard context.count <= Self.maximumContextLength else { throw .invalidCredential }
        let contextPrime = [UInt8(context.count)] + context
        let ikmTau = try decapsulate(keyHandle, context: Array("ARKG-Derive-Key-KEM.".utf8) + contextPrime)
        // BL-PRF: tau = hash_to_field(ikm_tau) with DST 'ARKG-BL-EC.' ‖ DST_ext ‖ ctx_bl (§3.1).
        let tau = HashToField.p256Scalar(
            ikmTau, dst: Array("ARKG-BL-EC.".utf8) + Self.dstExt + Array("ARKG-Derive-Key-BL.".utf8) + contextPrime)
        // BL-Blind-Private-Key: sk_bl + tau, refused when 0 (§3.1).
        let blinded = P256Scalar(reducing: Array(blinding.rawRepresentation)) + tau
        guard !blinded.isZero, let key = try? P256.Signing.PrivateKey(rawRepresentation: blinded.bigEndianBytes) else {
            throw .invalidCredential
        }
        return key
    }

    /// KEM-Decaps of the HMAC adapter over ECDH (§3.2, §3.3): split off the tag, ECDH with the
    /// ephemeral point, and accept only when the tag over the point matches (constant time).
    private func decapsulate(_ ciphertext: [UInt8], context: [UInt8]) throws(CTAPStatus) -> [UInt8] {
        guard ciphertext.count == Self.keyHandleLength,
            let ephemeral = try? P256.KeyAgreement.PublicKey(x963Representation: ciphertext.dropFirst(16)),
            let shared = try? encapsulation.sharedSecretFromKeyAgreement(with: ephemeral)
        else { throw .invalidCredential }
        let sharedBytes = shared.withUnsafeBytes { Array($0) }
        let prk = HKDF<SHA256>.extract(inputKeyMaterial: SymmetricKey(data: sharedBytes), salt: [UInt8]())
        let macKey = HKDF<SHA256>.expand(
            pseudoRandomKey: prk, info: Array("ARKG-KEM-HMAC-mac.".utf8) + Self.kemDST + context, outputByteCount: 32)
        let tag = Array(HMAC<SHA256>.authenticationCode(for: ciphertext.dropFirst(16), using: macKey)).prefix(16)
        guard ConstantTime.equals(Array(tag), Array(ciphertext.prefix(16))) else { throw .invalidCredential }
        let k = HKDF<SHA256>.expand(
            pseudoRandomKey: prk, info: Array("ARKG-KEM-HMAC-shared.".utf8) + Self.kemDST + context,
            outputByteCount: sharedBytes.count)
        return k.withUnsafeBytes { Array($0) }
    }
}
