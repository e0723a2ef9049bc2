import CBOR

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

    public func makeCredentialInput<E: CTAPExtension>(_: E.Type) throws(CTAPStatus) -> E.MakeCredentialInput? {
        try read(E.self)
    }
    public func makeCredentialOutput<E: CTAPExtension>(_: E.Type) throws(CTAPStatus) -> E.MakeCredentialOutput? {
        try read(E.self)
    }
    public func getAssertionInput<E: CTAPExtension>(_: E.Type) throws(CTAPStatus) -> E.GetAssertionInput? {
        try read(E.self)
    }
    public func getAssertionOutput<E: CTAPExtension>(_: E.Type) throws(CTAPStatus) -> E.GetAssertionOutput? {
        try read(E.self)
    }

    public mutating func setMakeCredentialInput<E: CTAPExtension>(_: E.Type, _ value: E.MakeCredentialInput) {
        entries[E.identifier] = value.cbor
    }
    public mutating func setMakeCredentialOutput<E: CTAPExtension>(_: E.Type, _ value: E.MakeCredentialOutput) {
        entries[E.identifier] = value.cbor
    }
    public mutating func setGetAssertionInput<E: CTAPExtension>(_: E.Type, _ value: E.GetAssertionInput) {
        entries[E.identifier] = value.cbor
    }
    public mutating func setGetAssertionOutput<E: CTAPExtension>(_: E.Type, _ value: E.GetAssertionOutput) {
        entries[E.identifier] = value.cbor
    }

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
