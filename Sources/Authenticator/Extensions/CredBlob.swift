import CTAP

/// credBlob (CTAP 2.1 §12.2): a blob of at most `maxLength` bytes kept with a discoverable
/// credential and returned, when asked, by every assertion with it.
struct CredBlobExtension: AuthenticatorExtension {
    typealias Wire = CredBlob

    /// maxCredBlobLength in getInfo: the spec's minimum, 32 bytes.
    static let maxLength = 32

    /// A blob too long is not stored (output `false`), and neither is one for a
    /// non-discoverable credential, which keeps nothing on the device.
    func record(_ input: [UInt8], on credential: inout CredentialExtensionState, _ creation: CredentialCreation)
        throws(CTAPStatus)
    {
        if input.count <= Self.maxLength, creation.residentKey { credential.credBlob = input }
    }

    func makeCredentialOutput(_ input: [UInt8], _ context: ExtensionContext) async throws(CTAPStatus) -> Bool? {
        context.credential.credBlob != nil
    }

    /// `getCredBlob: true` returns the blob, empty when the credential has none; `false` asks nothing.
    func getAssertionOutput(_ input: Bool, _ context: ExtensionContext) async throws(CTAPStatus) -> [UInt8]? {
        input ? context.credential.credBlob ?? [] : nil
    }
}
