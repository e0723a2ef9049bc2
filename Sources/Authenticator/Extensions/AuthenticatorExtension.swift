import CBOR
import CTAP

/// One extension as this device processes it (CTAP 2.1 §12): its wire type from `CTAP` and
/// the hooks makeCredential and getAssertion call. A hook an extension does not need keeps
/// its default, which does nothing.
protocol AuthenticatorExtension: Sendable {
    associatedtype Wire: CTAPExtension

    /// makeCredential, before the credential exists (CTAP 2.1 §6.1.2 step 16): records what
    /// the credential keeps for its life.
    func record(
        _ input: Wire.MakeCredentialInput, on credential: inout CredentialExtensionState, _ creation: CredentialCreation
    ) throws(CTAPStatus)

    /// makeCredential, once the credential exists (step 19): the output for authData, nil for none.
    func makeCredentialOutput(_ input: Wire.MakeCredentialInput, _ context: ExtensionContext) async throws(CTAPStatus)
        -> Wire.MakeCredentialOutput?

    /// makeCredential's outputs together: the one for authData and one for the response's
    /// unsignedExtensionOutputs (CTAP 2.2 §6.1.2), for an extension whose two come from one
    /// piece of work. By default `makeCredentialOutput` and no unsigned output.
    func makeCredentialOutputs(_ input: Wire.MakeCredentialInput, _ context: ExtensionContext) async throws(CTAPStatus)
        -> (signed: Wire.MakeCredentialOutput?, unsigned: CBORValue?)

    /// getAssertion, for each credential that answers (CTAP 2.1 §6.2.2 step 11): the output
    /// for authData, nil for none.
    func getAssertionOutput(_ input: Wire.GetAssertionInput, _ context: ExtensionContext) async throws(CTAPStatus)
        -> Wire.GetAssertionOutput?
}

extension AuthenticatorExtension {
    func record(
        _ input: Wire.MakeCredentialInput, on credential: inout CredentialExtensionState, _ creation: CredentialCreation
    ) throws(CTAPStatus) {}
    func makeCredentialOutput(_ input: Wire.MakeCredentialInput, _ context: ExtensionContext) async throws(CTAPStatus)
        -> Wire.MakeCredentialOutput?
    { nil }
    func makeCredentialOutputs(_ input: Wire.MakeCredentialInput, _ context: ExtensionContext) async throws(CTAPStatus)
        -> (signed: Wire.MakeCredentialOutput?, unsigned: CBORValue?)
    {
        (try await makeCredentialOutput(input, context), nil)
    }
    func getAssertionOutput(_ input: Wire.GetAssertionInput, _ context: ExtensionContext) async throws(CTAPStatus)
        -> Wire.GetAssertionOutput?
    { nil }
}

/// The makeCredential request as an extension's `record` hook sees it.
struct CredentialCreation: Sendable {
    let userVerified: Bool
    let residentKey: Bool
}

/// What an output hook may use: the credential, the UV state, and the device secrets an
/// extension derives from or agrees keys with.
struct ExtensionContext: Sendable {
    let credentialID: [UInt8]
    let credential: CredentialExtensionState
    let userVerified: Bool
    /// The device's key agreement keys by PIN/UV protocol (CTAP 2.1 §6.5.6), for extensions
    /// that share a secret with the platform (hmac-secret).
    let keyAgreements: [PinUvAuthProtocolVersion: PinUvAuthenticatorKeyAgreement]
    /// The device's wrapping key, root of per-credential derived secrets; gone at reset.
    let wrappingKey: [UInt8]
    /// makeCredential: the minimum PIN length when the RP may learn it (CTAP 2.1 §12.4), else nil.
    var minPINLengthForRP: Int? = nil
    /// The RP ID hash and the device's AAGUID, for an extension that attests a key of its own (previewSign).
    var rpIDHash: [UInt8] = []
    var aaguid: [UInt8] = []
    /// getAssertion: whether the user was present, and whether the authenticator discovered the
    /// credential (no allow list) rather than being named it.
    var userPresent = true
    var discovering = false
}
