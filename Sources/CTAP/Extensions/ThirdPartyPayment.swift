import CBOR

/// The thirdPartyPayment extension (CTAP 2.2 §12.9): `true` at creation marks the credential as
/// usable for payments initiated by other parties (Secure Payment Confirmation); `true` at
/// assertion asks whether it is, answered in authData.
public enum ThirdPartyPayment: CTAPExtension {
    public static let identifier = "thirdPartyPayment"
    public typealias MakeCredentialInput = Bool
    public typealias GetAssertionInput = Bool
    public typealias GetAssertionOutput = Bool
}
