import CTAP

/// largeBlobKey (CTAP 2.1 §12.3): a random key kept with a discoverable credential at
/// creation, returned as a response member whenever the platform asks for it with `true`.
struct LargeBlobKeyExtension: StoresWithCredential {
    typealias Wire = LargeBlobKey

    /// The credential's key into the large-blob array, in a discoverable credential's record only.
    static let stored = ExtensionStoredPart.bytes("largeBlobKey")

    /// Only `true` is a valid input (`CTAP2_ERR_INVALID_OPTION` otherwise). The key belongs
    /// to discoverable credentials: a non-discoverable one keeps nothing on the device, so
    /// it gets none and the platform learns that largeBlob is unsupported for it.
    func record(_ input: Bool, on credential: inout CredentialExtensionState, _ creation: CredentialCreation)
        throws(CTAPStatus)
    {
        guard input else { throw .invalidOption }
        if creation.residentKey { credential[Self.stored] = SecureRandom.bytes(LargeBlobKey.keyLength) }
    }

    /// getAssertion's input is checked here like makeCredential's; the key itself is the
    /// response member `largeBlobKey` (§6.2.2), which the command adds.
    func getAssertionOutput(_ input: Bool, _ context: ExtensionContext) async throws(CTAPStatus) -> Never? {
        guard input else { throw .invalidOption }
        return nil
    }
}

extension CredentialSource {
    /// The record's `largeBlobKey` member, nil when the credential was made without one.
    public var largeBlobKey: [UInt8]? {
        get { self[recorded: LargeBlobKeyExtension.stored] }
        set { self[recorded: LargeBlobKeyExtension.stored] = newValue }
    }
}
