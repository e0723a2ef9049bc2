import CBOR

/// getFingerprintSensorInfo's `fingerprintKind` (CTAP 2.1 §6.7.3): how the finger meets the sensor.
public enum FingerprintKind: UInt8, CBORMember, Sendable, Hashable {
    case touch = 0x01
    case swipe = 0x02

    public init(cbor: CBORValue) throws(CTAPStatus) {
        guard let kind = cbor.unsignedValue.flatMap({ UInt8(exactly: $0) }).flatMap(Self.init(rawValue:)) else {
            throw .cborUnexpectedType
        }
        self = kind
    }

    public var cbor: CBORValue { .unsigned(UInt64(rawValue)) }
}
