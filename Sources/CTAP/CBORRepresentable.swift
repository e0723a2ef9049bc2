import CBOR

/// A value with one CBOR form, read from untrusted input with the status CTAP 2.1 §8 assigns.
public protocol CBORRepresentable: Sendable {
    init(cbor: CBORValue) throws(CTAPStatus)
    var cbor: CBORValue { get }
}

extension CBORRepresentable {
    /// `cbor.encoded`'s bytes, written to `writer`. The scalars below and `@CTAPMap` structures
    /// write themselves without building the `CBORValue`.
    public func encode(into writer: inout CBORWriter) { writer.value(cbor) }
}

/// The value an accessor found, or `CTAP2_ERR_CBOR_UNEXPECTED_TYPE` when the item has another type.
@inline(__always)
func expectType<T>(_ typed: T?) throws(CTAPStatus) -> T {
    guard let typed else { throw .cborUnexpectedType }
    return typed
}

extension Bool: CBORRepresentable {
    public init(cbor: CBORValue) throws(CTAPStatus) { self = try expectType(cbor.boolValue) }
    public var cbor: CBORValue { .boolean(self) }
    public func encode(into writer: inout CBORWriter) { writer.boolean(self) }
}

extension String: CBORRepresentable {
    public init(cbor: CBORValue) throws(CTAPStatus) { self = try expectType(cbor.textValue) }
    public var cbor: CBORValue { .textString(self) }
    public func encode(into writer: inout CBORWriter) { writer.textString(self) }
}

/// A signed integer of either major type that fits.
extension Int: CBORRepresentable {
    public init(cbor: CBORValue) throws(CTAPStatus) { self = try expectType(cbor.intValue) }
    public var cbor: CBORValue { CBORValue(self) }
    public func encode(into writer: inout CBORWriter) { writer.integer(self) }
}

/// Major type 0 only.
extension UInt64: CBORRepresentable {
    public init(cbor: CBORValue) throws(CTAPStatus) { self = try expectType(cbor.unsignedValue) }
    public var cbor: CBORValue { .unsigned(self) }
}

/// Major type 0 only, and it must fit (subcommand numbers).
extension UInt8: CBORRepresentable {
    public init(cbor: CBORValue) throws(CTAPStatus) {
        self = try expectType(cbor.unsignedValue.flatMap(UInt8.init(exactly:)))
    }
    public var cbor: CBORValue { .unsigned(UInt64(self)) }
}

/// A byte string.
extension Array: CBORRepresentable where Element == UInt8 {
    public init(cbor: CBORValue) throws(CTAPStatus) { self = try expectType(cbor.bytesValue) }
    public var cbor: CBORValue { .byteString(self) }
    public func encode(into writer: inout CBORWriter) { writer.byteString(self) }
}

/// Any value, kept whole until its reader looks (an extension's input, an attestation statement).
extension CBORValue: CBORRepresentable {
    public init(cbor: CBORValue) { self = cbor }
    public var cbor: CBORValue { self }
}

/// A type with its own CBOR form (`init(cbor:)`, `cbor`) that is a member of
/// `CTAPStructure`s. `CBORValueDecoder` and `CBORValueEncoder` hand it its value whole;
/// it has no other coded form.
public protocol CBORMember: CBORRepresentable, Codable {}

extension CBORMember {
    public init(from decoder: any Decoder) throws { throw CTAPStatus.cborUnexpectedType }
    public func encode(to encoder: any Encoder) throws { throw CTAPStatus.other }
}

/// A map with text keys (`options` of getInfo): a non-text key is the wrong type.
extension Dictionary: CBORRepresentable where Key == String, Value: CBORRepresentable {
    public init(cbor: CBORValue) throws(CTAPStatus) {
        guard let entries = cbor.mapValue else { throw .cborUnexpectedType }
        var out: [String: Value] = [:]
        for (key, value) in entries {
            guard let text = key.textValue else { throw .cborUnexpectedType }
            out[text] = try Value(cbor: value)
        }
        self = out
    }

    public var cbor: CBORValue {
        .map([CBORValue: CBORValue](uniqueKeysWithValues: map { (.textString($0.key), $0.value.cbor) }))
    }
}

/// An array whose elements have a CBOR form, read and written element by element (allow
/// lists, algorithms, versions); a wrong element type fails the whole array.
public protocol CBORArray {
    init(cborArray: CBORValue) throws(CTAPStatus)
    var cborArray: CBORValue { get }
}

extension Array: CBORArray where Element: CBORRepresentable {
    public init(cborArray value: CBORValue) throws(CTAPStatus) {
        guard case .array(let items) = value else { throw .cborUnexpectedType }
        var elements: [Element] = []
        elements.reserveCapacity(items.count)
        for item in items { elements.append(try Element(cbor: item)) }
        self = elements
    }

    public var cborArray: CBORValue { .array(map(\.cbor)) }
}
