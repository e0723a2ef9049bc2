import CBOR

/// A value with one CBOR form, read from untrusted input with the status CTAP 2.1 §8 assigns.
public protocol CBORRepresentable: Sendable {
    init(cbor: CBORValue) throws(CTAPStatus)
    var cbor: CBORValue { get }
}

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

extension Bool: CBORRepresentable {
    public init(cbor: CBORValue) throws(CTAPStatus) {
        guard let value = cbor.boolValue else { throw .cborUnexpectedType }
        self = value
    }
    public var cbor: CBORValue { .boolean(self) }
}

extension String: CBORRepresentable {
    public init(cbor: CBORValue) throws(CTAPStatus) {
        guard let value = cbor.textValue else { throw .cborUnexpectedType }
        self = value
    }
    public var cbor: CBORValue { .textString(self) }
}

/// A signed integer of either major type that fits.
extension Int: CBORRepresentable {
    public init(cbor: CBORValue) throws(CTAPStatus) {
        guard let value = cbor.intValue else { throw .cborUnexpectedType }
        self = value
    }
    public var cbor: CBORValue { CBORValue(self) }
}

/// Major type 0 only.
extension UInt64: CBORRepresentable {
    public init(cbor: CBORValue) throws(CTAPStatus) {
        guard let value = cbor.unsignedValue else { throw .cborUnexpectedType }
        self = value
    }
    public var cbor: CBORValue { .unsigned(self) }
}

/// Major type 0 only, and it must fit (subcommand numbers).
extension UInt8: CBORRepresentable {
    public init(cbor: CBORValue) throws(CTAPStatus) {
        guard let value = cbor.unsignedValue.flatMap(UInt8.init(exactly:)) else { throw .cborUnexpectedType }
        self = value
    }
    public var cbor: CBORValue { .unsigned(UInt64(self)) }
}

extension Array: CBORRepresentable where Element == UInt8 {
    public init(cbor: CBORValue) throws(CTAPStatus) {
        guard let value = cbor.bytesValue else { throw .cborUnexpectedType }
        self = value
    }
    public var cbor: CBORValue { .byteString(self) }
}

/// Extension values by identifier, as they travel: the `extensions` request parameter
/// (CTAP 2.1 §6.1 0x06, §6.2 0x04) and authData's extensions map (WebAuthn L3 §6.1).
/// Read and written only through an extension's typed values; identifiers nobody asks
/// for are ignored, as CTAP 2.1 §12 requires of unsupported extensions.
public struct ExtensionMap: CBORMember, OmittedWhenEmpty, Sendable, Hashable {
    private var entries: [String: CBORValue]

    public init() { entries = [:] }
    public static var empty: Self { ExtensionMap() }

    public var isEmpty: Bool { entries.isEmpty }
    /// The identifiers present, for a reader that dispatches on them.
    public var identifiers: Dictionary<String, CBORValue>.Keys { entries.keys }

    public var cbor: CBORValue { entries.cbor }

    /// Reads a map keyed by text strings: any other key is `CTAP2_ERR_CBOR_UNEXPECTED_TYPE`.
    public init(cbor: CBORValue) throws(CTAPStatus) { entries = try [String: CBORValue](cbor: cbor) }

    public func makeCredentialInput<E: CTAPExtension>(_: E.Type) throws(CTAPStatus) -> E.MakeCredentialInput? { try read(E.self) }
    public func makeCredentialOutput<E: CTAPExtension>(_: E.Type) throws(CTAPStatus) -> E.MakeCredentialOutput? { try read(E.self) }
    public func getAssertionInput<E: CTAPExtension>(_: E.Type) throws(CTAPStatus) -> E.GetAssertionInput? { try read(E.self) }
    public func getAssertionOutput<E: CTAPExtension>(_: E.Type) throws(CTAPStatus) -> E.GetAssertionOutput? { try read(E.self) }

    public mutating func setMakeCredentialInput<E: CTAPExtension>(_: E.Type, _ value: E.MakeCredentialInput) { entries[E.identifier] = value.cbor }
    public mutating func setMakeCredentialOutput<E: CTAPExtension>(_: E.Type, _ value: E.MakeCredentialOutput) { entries[E.identifier] = value.cbor }
    public mutating func setGetAssertionInput<E: CTAPExtension>(_: E.Type, _ value: E.GetAssertionInput) { entries[E.identifier] = value.cbor }
    public mutating func setGetAssertionOutput<E: CTAPExtension>(_: E.Type, _ value: E.GetAssertionOutput) { entries[E.identifier] = value.cbor }

    /// Stores an already-encoded value under an identifier (the authenticator assembling outputs).
    public mutating func set(_ identifier: String, _ value: CBORValue) { entries[identifier] = value }

    /// The typed value of `E`, nil when absent or when `E` has nothing to say in this place.
    private func read<E: CTAPExtension, Value: CBORRepresentable>(_: E.Type) throws(CTAPStatus) -> Value? {
        guard Value.self != Never.self, let value = entries[E.identifier] else { return nil }
        return try Value(cbor: value)
    }
}

extension ExtensionMap: ExpressibleByDictionaryLiteral {
    /// Raw values by identifier, for a platform (or a conformance test) that sends inputs no
    /// typed value describes, malformed ones included.
    public init(dictionaryLiteral elements: (String, CBORValue)...) {
        self.init()
        for (identifier, value) in elements { set(identifier, value) }
    }
}

/// Any value, kept whole until its reader looks (an extension's input, an attestation statement).
extension CBORValue: CBORRepresentable {
    public init(cbor: CBORValue) { self = cbor }
    public var cbor: CBORValue { self }
}
