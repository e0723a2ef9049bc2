import CBOR
import CTAP
import Crypto
import SwiftASN1
import Testing
import X509

@testable import Authenticator

/// `--attestation none|self|x5c`: what makeCredential's statement proves.
@Suite struct AttestationTests {
    @Test func x5cAttestationIsSignedByACertificateUnderTheKeystoresRoot() async throws {
        let h = Harness { $0.attestation = .x5c }
        let response = try await h.makeCredential(Fixture.makeCredential())
        guard case .packed(let alg, let sig, let x5c?) = response.attestation.statement else {
            Issue.record("packed with x5c expected")
            return
        }
        #expect(alg == COSEAlgorithm.es256.rawValue)
        let leaf = try Certificate(derEncoded: try #require(x5c.first))
        let rootDER = try await h.authenticator.attestationAuthority().rootCertificate
        let root = try Certificate(derEncoded: rootDER)
        #expect(leaf.issuer == root.subject)
        #expect(
            root.publicKey.isValidSignature(leaf.signature, for: leaf), "the root issued the attestation certificate")
        let key = try #require(P256.Signing.PublicKey(leaf.publicKey))
        #expect(
            key.isValidSignature(
                try P256.Signing.ECDSASignature(derRepresentation: sig),
                for: response.attestation.authenticatorData + Fixture.clientDataHash))
        // WebAuthn L3 §8.2.1: OU, not a CA, the AAGUID extension not critical.
        #expect(leaf.subject.description.contains("OU=Authenticator Attestation"))
        #expect(try leaf.extensions.basicConstraints == .notCertificateAuthority)
        let aaguid = try #require(leaf.extensions[oid: AttestationAuthority.aaguidExtension])
        #expect(!aaguid.critical)
        #expect(
            Array(try ASN1OctetString(derEncoded: aaguid.value).bytes) == Authenticator.Configuration.passkeydAAGUID)
        // One authority per keystore: the next credential is attested by the same certificate.
        let next = try await h.makeCredential(Fixture.makeCredential(user: Fixture.user(2)))
        guard case .packed(_, _, let again?) = next.attestation.statement else {
            Issue.record("x5c expected")
            return
        }
        #expect(again == x5c)
    }

    @Test func noneAndSelfAttestation() async throws {
        let none = Harness { $0.attestation = .none }
        #expect(try await none.makeCredential(Fixture.makeCredential()).attestation.statement == .none)
        let selfAttested = Harness()
        guard
            case .packed(_, _, let x5c) = try await selfAttested.makeCredential(Fixture.makeCredential()).attestation
                .statement
        else {
            Issue.record("packed expected")
            return
        }
        #expect(x5c == nil)
    }
}
