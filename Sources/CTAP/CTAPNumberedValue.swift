import CBOR

/// A value the spec names by a small number (a subcommand, a bio modality, a fingerprint kind, a
/// sample status): an unsigned integer on the wire, a non-integer `CTAP2_ERR_CBOR_UNEXPECTED_TYPE`,
/// a number the enumeration does not define `unknownValueStatus` (each table's own rule).
public protocol CTAPNumberedValue: RawRepresentable<UInt8>, CBORMember {
    /// What a number the enumeration does not define is refused with.
    static var unknownValueStatus: CTAPStatus { get }
}

extension CTAPNumberedValue {
    public init(cbor: CBORValue) throws(CTAPStatus) {
        guard let number = cbor.unsignedValue else { throw .cborUnexpectedType }
        guard let value = UInt8(exactly: number).flatMap(Self.init(rawValue:)) else { throw Self.unknownValueStatus }
        self = value
    }

    public var cbor: CBORValue { .unsigned(UInt64(rawValue)) }
}
