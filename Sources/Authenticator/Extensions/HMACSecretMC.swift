import CTAP

/// hmac-secret-mc (CTAP 2.2 §12.7): hmac-secret's evaluation at creation, for a credential that
/// the same request enables hmac-secret on; without that, no output.
struct HMACSecretMCExtension: AuthenticatorExtension {
    typealias Wire = HMACSecretMC

    func makeCredentialOutput(_ input: HMACSecretInput, _ context: ExtensionContext) async throws(CTAPStatus)
        -> [UInt8]?
    {
        try HMACSecretExtension.evaluate(input, context)
    }
}
