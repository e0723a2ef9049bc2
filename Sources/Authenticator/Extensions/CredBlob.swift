import CTAP

/// credBlob (CTAP 2.1 §12.2): a blob of at most `maxLength` bytes kept with a discoverable
/// credential and returned, when asked, by every assertion with it.
struct CredBlobExtension: StoresWithCredential {
    typealias Wire = CredBlob

    /// The blob stored at creation, in a discoverable credential's record only.
    static let stored = ExtensionStoredPart.bytes("credBlob")

    /// maxCredBlobLength in getInfo: the spec's minimum, 32 bytes.
    static let maxLength = 32

    /// A blob too long is not stored (output `false`), and neither is one for a
    /// non-discoverable credential, which keeps nothing on the device.
    func record(_ input: [UInt8], on credential: inout CredentialExtensionState, _ creation: CredentialCreation)
        throws(CTAPStatus)
    {
        if input.count <= Self.maxLength, creation.residentKey { credential[Self.stored] = input }
    }

    func makeCredentialOutput(_ input: [UInt8], _ context: ExtensionContext) async throws(CTAPStatus) -> Bool? {
        context.credential[Self.stored] != nil
    }

    /// `getCredBlob: true` returns the blob, empty when the credential has none; `false` asks nothing.
    func getAssertionOutput(_ input: Bool, _ context: ExtensionContext) async throws(CTAPStatus) -> [UInt8]? {
        input ? context.credential[Self.stored] ?? [] : nil
    }
}

extension CredentialSource {
    /// The record's `credBlob` member, nil when none was stored at creation.
    public var credBlob: [UInt8]? {
        get { self[recorded: CredBlobExtension.stored] }
        set { self[recorded: CredBlobExtension.stored] = newValue }
    }
}
