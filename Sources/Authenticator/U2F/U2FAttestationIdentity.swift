import Crypto
import Foundation
import SwiftASN1
import X509

/// The `fido-u2f` attestation identity (FIDO U2F Raw Message Formats §4.3): a P-256 key and
/// a self-signed X.509 certificate for it. One per device state, sealed with it by the store;
/// authenticatorReset makes a new one, as it makes every other secret anew.
public struct U2FAttestationIdentity: Sendable, Codable, Equatable {
    /// The P-256 private scalar.
    public var privateKey: [UInt8]
    /// The certificate, DER.
    public var certificate: [UInt8]

    public init(privateKey: [UInt8], certificate: [UInt8]) {
        self.privateKey = privateKey
        self.certificate = certificate
    }

    /// A fresh key and its certificate: subject = issuer, valid from now for 20 years,
    /// not a CA. Names the model only, so it says no more than the AAGUID does.
    static func make(now: Date = Date()) throws -> U2FAttestationIdentity {
        let key = P256.Signing.PrivateKey()
        let name = try DistinguishedName {
            OrganizationName("passkeyd")
            OrganizationalUnitName("Authenticator Attestation")
            CommonName("passkeyd U2F attestation")
        }
        let certificate = try CertificateIssuer.issue(
            key.publicKey, subject: name, issuer: name, signedBy: key, years: 20, now: now,
            extensions: try Certificate.Extensions { Critical(BasicConstraints.notCertificateAuthority) })
        return U2FAttestationIdentity(privateKey: Array(key.rawRepresentation), certificate: certificate)
    }

    /// A DER ECDSA signature over `message` with the attestation key.
    func sign(_ message: [UInt8]) throws -> [UInt8] {
        Array(try P256.Signing.PrivateKey(rawRepresentation: privateKey).signature(for: message).derRepresentation)
    }
}
