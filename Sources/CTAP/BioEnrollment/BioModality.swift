import CBOR

/// A user verification modality authenticatorBioEnrollment manages (CTAP 2.1 §6.7): only the
/// fingerprint is defined. Another number is one this device has no sensor for.
public enum BioModality: UInt8, CBORMember, Sendable, Hashable {
    case fingerprint = 0x01

    public init(cbor: CBORValue) throws(CTAPStatus) {
        guard let number = cbor.unsignedValue else { throw .cborUnexpectedType }
        guard let modality = UInt8(exactly: number).flatMap(Self.init(rawValue:)) else { throw .invalidParameter }
        self = modality
    }

    public var cbor: CBORValue { .unsigned(UInt64(rawValue)) }
}
