import Crypto
import Foundation
import PasskeydMacros

/// The `fido-u2f` attestation identity (FIDO U2F Raw Message Formats §4.3): a P-256 key and
/// a self-signed X.509 certificate for it.
///
/// One batch identity for every passkeyd, as a hardware model shares one across a batch of at
/// least 100 000 keys (FIDO U2F Overview, "Attestation"): an identity per
/// installation would let relying parties link one user's accounts by the certificate. Its
/// private key is in this source, so the attestation proves nothing but the model, which is
/// all a software authenticator can honestly attest. Older stores carry a per-installation
/// identity in their device state (`DeviceState.u2fAttestation`); it is no longer used.
@MemberwiseInit
public struct U2FAttestationIdentity: Sendable, Codable, Equatable {
    /// The P-256 private scalar.
    public var privateKey: [UInt8]
    /// The certificate, DER.
    public var certificate: [UInt8]

    /// The batch identity: subject = issuer = O=passkeyd, OU=Authenticator Attestation,
    /// CN=passkeyd U2F batch attestation; valid 2026-01-01 to 2046-01-01; not a CA. Made once
    /// and written here byte for byte, since an ECDSA signature made at run time would differ.
    public static let batch = U2FAttestationIdentity(
        privateKey: Array(Data(base64Encoded: "WVXwpdbj1kyeOuasxDpWH5G/0Mej8GNAGCwdQttwEJY=")!),
        certificate: Array(
            Data(
                base64Encoded: """
                    MIIB0zCCAXigAwIBAgIULNIEtiOeBECh6p1TwROLFGetCUIwCgYIKoZIzj0EAwIwYDERMA8GA1UECgwIcGFzc2tleWQxIjAgBgNVBAsMGUF1dGhl\
                    bnRpY2F0b3IgQXR0ZXN0YXRpb24xJzAlBgNVBAMMHnBhc3NrZXlkIFUyRiBiYXRjaCBhdHRlc3RhdGlvbjAeFw0yNjAxMDEwMDAwMDBaFw00NjAx\
                    MDEwMDAwMDBaMGAxETAPBgNVBAoMCHBhc3NrZXlkMSIwIAYDVQQLDBlBdXRoZW50aWNhdG9yIEF0dGVzdGF0aW9uMScwJQYDVQQDDB5wYXNza2V5\
                    ZCBVMkYgYmF0Y2ggYXR0ZXN0YXRpb24wWTATBgcqhkjOPQIBBggqhkjOPQMBBwNCAARKW0nQ0tl+k6OHLHzyvqr4Jsjf33ppLJuEfRTTwx1FnIUi\
                    LOcXtvreIdf9v6MO7nD2+2XeU0rzFuU8z9N0Hn42oxAwDjAMBgNVHRMBAf8EAjAAMAoGCCqGSM49BAMCA0kAMEYCIQCeZzNhfhharNJIYsVh/+PB\
                    Zm4fK1B0Y5XLS9UoAdEvrAIhAOsQk2lkoNgU/PT5xEuUhg+Oq0ZgHSYIjXpC1Sd+ZJzf
                    """)!))

    /// A DER ECDSA signature over `message` with the attestation key.
    func sign(_ message: [UInt8]) throws -> [UInt8] {
        Array(try P256.Signing.PrivateKey(rawRepresentation: privateKey).signature(for: message).derRepresentation)
    }
}
