import CBOR

/// getFingerprintSensorInfo's `fingerprintKind` (CTAP 2.1 §6.7.3): how the finger meets the sensor.
public enum FingerprintKind: UInt8, CTAPNumberedValue, Sendable, Hashable {
    case touch = 0x01
    case swipe = 0x02

    public static var unknownValueStatus: CTAPStatus { .cborUnexpectedType }
}
