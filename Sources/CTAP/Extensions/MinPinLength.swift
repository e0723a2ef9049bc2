import CBOR

/// The minPinLength extension (CTAP 2.1 §12.4): `true` at creation asks for the device's
/// current minimum PIN length, reported only to RP IDs the device was configured to tell
/// (authenticatorConfig setMinPINLength, §6.11.4).
public enum MinPinLength: CTAPExtension {
    public static let identifier = "minPinLength"
    public typealias MakeCredentialInput = Bool
    public typealias MakeCredentialOutput = Int
}
