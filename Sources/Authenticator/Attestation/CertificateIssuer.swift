import Crypto
import Foundation
import SwiftASN1
import X509

/// Issues the X.509 certificates passkeyd's attestation keys need (the U2F identity, the
/// `--attestation x5c` root and attestation certificate): P-256, ECDSA with SHA-256, version 3,
/// valid from a minute ago for `years`, returned as DER.
enum CertificateIssuer {
    static func issue(
        _ key: P256.Signing.PublicKey, subject: DistinguishedName, issuer: DistinguishedName,
        signedBy issuerKey: P256.Signing.PrivateKey, years: Int, now: Date, extensions: Certificate.Extensions
    ) throws -> [UInt8] {
        let certificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: Certificate.PublicKey(key),
            notValidBefore: now.addingTimeInterval(-60),
            notValidAfter: now.addingTimeInterval(Double(years) * 365 * 86_400),
            issuer: issuer, subject: subject, signatureAlgorithm: .ecdsaWithSHA256, extensions: extensions,
            issuerPrivateKey: Certificate.PrivateKey(issuerKey))
        var serializer = DER.Serializer()
        try serializer.serialize(certificate)
        return serializer.serializedBytes
    }
}
