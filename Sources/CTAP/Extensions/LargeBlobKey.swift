import CBOR

/// The largeBlobKey extension (CTAP 2.1 §12.3): `true` at creation gives a discoverable
/// credential its own 32-byte key into the large-blob array (§6.10); `true` at assertion
/// asks for it. The key travels as a response member (makeCredential 0x05, getAssertion 0x07,
/// credential management 0x0B), never in authData.
public enum LargeBlobKey: CTAPExtension {
    public static let identifier = "largeBlobKey"
    public typealias MakeCredentialInput = Bool
    public typealias GetAssertionInput = Bool

    /// A largeBlobKey is 32 bytes (§12.3).
    public static let keyLength = 32
}
