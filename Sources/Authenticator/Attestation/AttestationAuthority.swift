import CTAP
import Crypto
import Foundation
import SwiftASN1
import X509

/// The keystore's test attestation PKI for `--attestation x5c`: a root CA, and the attestation
/// key and certificate it issued. Made once per device state, sealed with it by the store,
/// replaced by authenticatorReset like every other secret. A test relying party trusts the
/// root (`passkeyctl attestation-ca`), exactly as it would trust a vendor's root.
public struct AttestationAuthority: Sendable, Codable, Equatable {
    /// The root CA's certificate, DER.
    public var rootCertificate: [UInt8]
    /// The attestation key (P-256 scalar) and its certificate, DER.
    public var attestationKey: [UInt8]
    public var attestationCertificate: [UInt8]
    /// The enterprise attestation key and certificate (CTAP 2.1 §7.1), issued with the others:
    /// its subject names this device alone. Nil in authorities made before enterprise
    /// attestation existed, which cannot issue it afterwards (the root's key is gone), so those
    /// devices offer no enterprise attestation.
    public var enterpriseKey: [UInt8]?
    public var enterpriseCertificate: [UInt8]?

    /// id-fido-gen-ce-aaguid (WebAuthn L3 §8.2.1): the AAGUID in the attestation certificate.
    static let aaguidExtension = try! ASN1ObjectIdentifier(dotRepresentation: "1.3.6.1.4.1.45724.1.1.4")

    /// A root (CA, may sign certificates, 30 years) and two attestation certificates under it (the
    /// batch one, and the enterprise one naming this device) that meet WebAuthn L3 §8.2.1: version 3; subject C, O, OU "Authenticator Attestation" and CN;
    /// not a CA; the AAGUID in id-fido-gen-ce-aaguid, not critical. The root's key is not kept:
    /// nothing else is ever issued under it.
    static func make(aaguid: [UInt8], now: Date = Date()) throws -> AttestationAuthority {
        let rootKey = P256.Signing.PrivateKey()
        let rootName = try DistinguishedName {
            CountryName("ZZ")
            OrganizationName("passkeyd")
            OrganizationalUnitName("Test Attestation Root")
            CommonName("passkeyd test attestation root (this keystore only)")
        }
        let root = try CertificateIssuer.issue(
            rootKey.publicKey, subject: rootName, issuer: rootName, signedBy: rootKey, years: 30, now: now,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                Critical(KeyUsage(keyCertSign: true, cRLSign: true))
            })

        var aaguidValue = DER.Serializer()
        try aaguidValue.serialize(ASN1OctetString(contentBytes: ArraySlice(aaguid)))
        /// An attestation key and its certificate under the root, named `commonName`.
        func leaf(_ commonName: String) throws -> (key: P256.Signing.PrivateKey, certificate: [UInt8]) {
            let key = P256.Signing.PrivateKey()
            let name = try DistinguishedName {
                CountryName("ZZ")
                OrganizationName("passkeyd")
                OrganizationalUnitName("Authenticator Attestation")
                CommonName(commonName)
            }
            let certificate = try CertificateIssuer.issue(
                key.publicKey, subject: name, issuer: rootName, signedBy: rootKey, years: 20, now: now,
                extensions: try Certificate.Extensions {
                    Critical(BasicConstraints.notCertificateAuthority)
                    Certificate.Extension(
                        oid: aaguidExtension, critical: false, value: ArraySlice(aaguidValue.serializedBytes))
                })
            return (key, certificate)
        }
        let batch = try leaf("passkeyd attestation")
        // CTAP 2.1 §7.1: an enterprise attestation may identify the device; the batch certificate must not.
        let serial = (0..<8).map { _ in UInt8.random(in: 0...255) }.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }
            .joined()
        let enterprise = try leaf("passkeyd enterprise attestation \(serial)")
        return AttestationAuthority(
            rootCertificate: root, attestationKey: Array(batch.key.rawRepresentation),
            attestationCertificate: batch.certificate,
            enterpriseKey: Array(enterprise.key.rawRepresentation), enterpriseCertificate: enterprise.certificate)
    }

    /// A DER ECDSA (ES256) signature over `message` with the attestation key, or the enterprise one.
    func sign(_ message: [UInt8], enterprise: Bool = false) throws(CTAPStatus) -> [UInt8] {
        guard let key = enterprise ? enterpriseKey : attestationKey else { throw .other }
        do {
            return Array(try P256.Signing.PrivateKey(rawRepresentation: key).signature(for: message).derRepresentation)
        } catch {
            throw .other
        }
    }
}
