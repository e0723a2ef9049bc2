import CBOR

/// The credBlob extension (CTAP 2.1 §12.2): a small opaque blob stored with a credential at
/// creation (output: whether it was stored), returned by getAssertion when asked with `true`.
public enum CredBlob: CTAPExtension {
    public static let identifier = "credBlob"
    public typealias MakeCredentialInput = [UInt8]
    public typealias MakeCredentialOutput = Bool
    public typealias GetAssertionInput = Bool
    /// The stored blob; empty when the credential has none.
    public typealias GetAssertionOutput = [UInt8]
}
