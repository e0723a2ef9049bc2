import CBOR
import CTAP
import Crypto

/// hmac-secret (CTAP 2.1 §12.5): enabled per credential at creation; at assertion, HMACs of
/// the platform's salts under the credential's CredRandom, exchanged encrypted under a shared
/// secret from the PIN/UV protocol's key agreement.
struct HMACSecretExtension: StoresWithCredential {
    typealias Wire = HMACSecret

    /// Whether the credential has CredRandom values: `hmacSecret: true` in the record, 0x80 in a
    /// wrapped ID's policy byte.
    static let stored = ExtensionStoredPart.flag("hmacSecret", policyBit: 0x80)

    func makeCredentialOutput(_ input: Bool, _ context: ExtensionContext) async throws(CTAPStatus) -> Bool? {
        context.credential[Self.stored] ? true : nil
    }

    /// Authenticator processing: verify saltAuth, decrypt the salts, HMAC them with the
    /// credential's CredRandom for the UV state, and return the outputs encrypted under the
    /// shared secret. A credential created without hmac-secret gives no output.
    func getAssertionOutput(_ input: HMACSecretInput, _ context: ExtensionContext) async throws(CTAPStatus) -> [UInt8]?
    {
        try Self.evaluate(input, context)
    }

    /// The evaluation itself, shared with hmac-secret-mc (CTAP 2.2 §12.7), which makes it at creation.
    static func evaluate(_ input: HMACSecretInput, _ context: ExtensionContext) throws(CTAPStatus) -> [UInt8]? {
        guard context.credential[Self.stored] else { return nil }
        guard let agreement = context.keyAgreements[input.version] else { throw .invalidParameter }
        let pinProtocol = agreement.authProtocol
        let secret = try agreement.decapsulate(peerKey: input.keyAgreement)
        try pinProtocol.verify(key: secret, message: input.saltEnc, signature: input.saltAuth)
        let salts = try pinProtocol.decrypt(key: secret, ciphertext: input.saltEnc)
        guard salts.count == 32 || salts.count == 64 else { throw .invalidLength }
        let credRandom = Self.credRandom(context)
        var outputs: [UInt8] = []
        for start in stride(from: 0, to: salts.count, by: 32) {
            outputs += HMAC<SHA256>.authenticationCode(for: salts[start..<start + 32], using: credRandom)
        }
        return try pinProtocol.encrypt(key: secret, plaintext: outputs)
    }

    /// CredRandomWithUV / CredRandomWithoutUV, derived rather than stored: HKDF of the
    /// device's wrapping key over the credential ID. Stable for the credential's life,
    /// different per credential and per UV state, and gone with the wrapping key at reset.
    private static func credRandom(_ context: ExtensionContext) -> SymmetricKey {
        let info = Array("passkeyd hmac-secret \(context.userVerified ? "with" : "without") UV".utf8)
        return HKDF<SHA256>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: context.wrappingKey), salt: context.credentialID, info: info,
            outputByteCount: 32)
    }
}

extension CredentialSource {
    /// The record's `hmacSecret` member: true when enabled at creation, absent (nil) when not.
    public var hmacSecret: Bool? {
        get { self[recorded: HMACSecretExtension.stored] }
        set { self[recorded: HMACSecretExtension.stored] = newValue }
    }
}
