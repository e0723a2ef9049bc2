import CBOR
import CTAP
import Crypto

/// The hmac-secret extension's getAssertion input (CTAP 2.1 §12.5): the platform's
/// key agreement key, one or two encrypted 32-byte salts and their MAC.
struct HMACSecretInput: Sendable {
    let keyAgreement: COSEKey
    let saltEnc: [UInt8]
    let saltAuth: [UInt8]
    let version: PINUVAuthProtocolVersion

    /// Reads `extensions["hmac-secret"]`; nil when absent.
    init?(_ extensions: [String: CBORValue]) throws(CTAPStatus) {
        guard let value = extensions["hmac-secret"] else { return nil }
        let map = try CBORMap(value)
        keyAgreement = try map.required(1, COSEKey.init(cbor:))
        saltEnc = try map.required(2, CBORRead.bytes)
        saltAuth = try map.required(3, CBORRead.bytes)
        // pinUvAuthProtocol defaults to 1 for CTAP 2.0 platforms.
        let number = try map.optional(4, CBORRead.int) ?? 1
        guard let version = PINUVAuthProtocolVersion(rawValue: number) else { throw .invalidParameter }
        self.version = version
    }
}

extension Authenticator {
    /// The hmac-secret output for one credential (CTAP 2.1 §12.5, authenticator processing):
    /// verify saltAuth, decrypt the salts, HMAC them with the credential's CredRandom for
    /// the UV state, and return the outputs encrypted under the shared secret.
    func hmacSecretOutput(_ input: HMACSecretInput, credentialID: [UInt8], userVerified: Bool) async throws(CTAPStatus) -> [UInt8] {
        guard let agreement = pinUV.keyAgreements[input.version] else { throw .invalidParameter }
        let pinProtocol = agreement.authProtocol
        let secret = try agreement.decapsulate(peerKey: input.keyAgreement)
        try pinProtocol.verify(key: secret, message: input.saltEnc, signature: input.saltAuth)
        let salts = try pinProtocol.decrypt(key: secret, ciphertext: input.saltEnc)
        guard salts.count == 32 || salts.count == 64 else { throw .invalidLength }
        let credRandom = try await credRandom(credentialID: credentialID, userVerified: userVerified)
        var outputs: [UInt8] = []
        for start in stride(from: 0, to: salts.count, by: 32) {
            outputs += HMAC<SHA256>.authenticationCode(for: salts[start..<start + 32], using: credRandom)
        }
        return try pinProtocol.encrypt(key: secret, plaintext: outputs)
    }

    /// CredRandomWithUV / CredRandomWithoutUV, derived rather than stored: HKDF of the
    /// device's wrapping key over the credential ID. Stable for the credential's life,
    /// different per credential and per UV state, and gone with the wrapping key at reset.
    private func credRandom(credentialID: [UInt8], userVerified: Bool) async throws(CTAPStatus) -> SymmetricKey {
        let wrappingKey = try await deviceState().wrappingKey
        let info = Array("passkeyd hmac-secret \(userVerified ? "with" : "without") UV".utf8)
        return HKDF<SHA256>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: wrappingKey), salt: credentialID, info: info, outputByteCount: 32)
    }
}
