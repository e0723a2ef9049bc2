import CBOR

/// A user verification modality authenticatorBioEnrollment manages (CTAP 2.1 §6.7): only the
/// fingerprint is defined. Another number is one this device has no sensor for.
public enum BioModality: UInt8, CTAPNumberedValue, Sendable, Hashable {
    case fingerprint = 0x01

    public static var unknownValueStatus: CTAPStatus { .invalidParameter }
}
