import CBOR

/// One authenticator extension's wire vocabulary (CTAP 2.1 §12; WebAuthn L3 §9): its identifier
/// and the typed input and output it carries in makeCredential and getAssertion. A command the
/// extension has nothing to say in keeps the default `Never`.
public protocol CTAPExtension: Sendable {
    /// The key in the request's `extensions` parameter and in authData's extensions map.
    static var identifier: String { get }
    associatedtype MakeCredentialInput: CBORRepresentable = Never
    associatedtype MakeCredentialOutput: CBORRepresentable = Never
    associatedtype GetAssertionInput: CBORRepresentable = Never
    associatedtype GetAssertionOutput: CBORRepresentable = Never
}

extension Never: CBORRepresentable {
    /// Never read: `ExtensionMap` skips commands an extension has no input for.
    public init(cbor: CBORValue) throws(CTAPStatus) { throw .invalidParameter }
    public var cbor: CBORValue { switch self {} }
}
