import CBOR

/// A command's `subCommand` number (CTAP 2.1 §6.5.5, §6.8): a number this specification
/// does not define is `CTAP2_ERR_INVALID_SUBCOMMAND`, a non-integer the wrong type.
public protocol CTAPSubcommand: RawRepresentable<UInt8>, CBORMember {}

extension CTAPSubcommand {
    public init(cbor: CBORValue) throws(CTAPStatus) {
        guard let number = cbor.unsignedValue else { throw .cborUnexpectedType }
        guard let subcommand = UInt8(exactly: number).flatMap(Self.init(rawValue:)) else { throw .invalidSubcommand }
        self = subcommand
    }

    public var cbor: CBORValue { .unsigned(UInt64(rawValue)) }
}
