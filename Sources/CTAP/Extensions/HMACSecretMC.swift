import CBOR

/// The hmac-secret-mc extension (CTAP 2.2 §12.7): hmac-secret's salts sent with makeCredential,
/// so the platform gets the HMAC outputs of the new credential at once (with hmac-secret: true
/// in the same request); the outputs are those a getAssertion with the same salts and UV state gives.
public enum HMACSecretMC: CTAPExtension {
    public static let identifier = "hmac-secret-mc"
    public typealias MakeCredentialInput = HMACSecretInput
    /// The outputs, encrypted under the shared secret.
    public typealias MakeCredentialOutput = [UInt8]
}
