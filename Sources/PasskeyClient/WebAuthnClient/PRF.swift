import CBOR
import CTAP
import Crypto
import WebAuthn

/// The prf extension (WebAuthn L3 §10.1.4) over CTAP's hmac-secret (CTAP 2.1 §12.5):
/// each value becomes salt = SHA-256("WebAuthn PRF" ‖ 0x00 ‖ value), sent encrypted under a
/// fresh shared secret; the authenticator's outputs come back encrypted under the same one.
struct PRFEvaluation: Sendable {
    let input: HMACSecretInput
    let secret: SymmetricKey
    let pinProtocol: any PinUvAuthProtocol
    let hasSecond: Bool

    static func salt(_ value: [UInt8]) -> [UInt8] {
        Array(SHA256.hash(data: Array("WebAuthn PRF".utf8) + [0x00] + value))
    }

    /// Prepares the hmac-secret input for `values` with a new key agreement.
    static func prepare(
        _ values: AuthenticationExtensionsPRFValuesJSON, session: CTAP2Session,
        info: GetInfoResponse
    ) async throws(CTAP2Error) -> PRFEvaluation {
        let pins = try ClientPINSession(session: session, info: info)
        let (platformKey, secret) = try await pins.sharedSecret()
        let salts = salt(values.first) + (values.second.map(salt) ?? [])
        let pinProtocol = pins.pinProtocol
        let saltEnc: [UInt8]
        do { saltEnc = try pinProtocol.encrypt(key: secret, plaintext: salts) } catch { throw .status(error) }
        let input = HMACSecretInput(
            keyAgreement: platformKey, saltEnc: saltEnc,
            saltAuth: pinProtocol.authenticate(key: secret, message: saltEnc), version: pinProtocol.version)
        return PRFEvaluation(input: input, secret: secret, pinProtocol: pinProtocol, hasSecond: values.second != nil)
    }

    /// The PRF results carried in an assertion's authenticator data, if any.
    func results(in authenticatorData: [UInt8]) -> AuthenticationExtensionsPRFValuesJSON? {
        guard
            let encrypted = try? AuthenticatorData(bytes: authenticatorData).extensionOutputs().getAssertionOutput(
                HMACSecret.self),
            let outputs = try? pinProtocol.decrypt(key: secret, ciphertext: encrypted),
            outputs.count == (hasSecond ? 64 : 32)
        else { return nil }
        return AuthenticationExtensionsPRFValuesJSON(
            first: Array(outputs.prefix(32)), second: hasSecond ? Array(outputs.suffix(32)) : nil)
    }
}
