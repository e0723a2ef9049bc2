import CBOR
import CTAP
import Crypto
import Testing
import X509

@testable import Authenticator
@testable import PasskeyClient

/// Enterprise attestation (CTAP 2.1 §7.1): enabled by authenticatorConfig, asked for by makeCredential.
@Suite struct EnterpriseAttestationTests {
    static func enabled() async throws -> (Harness, PlatformPIN) {
        let h = Harness(presence: Array(repeating: .approved, count: 8)) { $0.attestation = .x5c }
        let platform = PlatformPIN(h, .two)
        #expect(try await platform.info().options["ep"] == false)
        let acfg = try #require(try await platform.setPINAndToken(permissions: .acfg))
        #expect(try await AuthenticatorConfigTests.config(h, .enableEnterpriseAttestation, token: acfg) == .success)
        #expect(try await platform.info().options["ep"] == true)
        return (h, platform)
    }

    static func certificate(_ response: MakeCredentialResponse) throws -> [UInt8] {
        guard case .packed(_, _, let x5c?) = response.attestation.statement else { throw CTAPStatus.other }
        return try #require(x5c.first)
    }

    static func request(_ platform: PlatformPIN, rp: PublicKeyCredentialRpEntity = Fixture.rp, mode: Int?) async throws
        -> MakeCredentialRequest
    {
        var request = platform.makeCredential(
            try await platform.grantedToken(pin: PlatformPIN.testPIN, permissions: .mc), rp: rp)
        request.enterpriseAttestation = mode
        return request
    }

    @Test func platformManagedGivesTheEnterpriseCertificateUnderTheSameRoot() async throws {
        let (h, platform) = try await Self.enabled()
        let batch = try await h.makeCredential(try await Self.request(platform, mode: nil))
        #expect(batch.enterpriseAttestation == nil)
        let enterprise = try await h.makeCredential(try await Self.request(platform, mode: 2))
        #expect(enterprise.enterpriseAttestation == true)
        let leafDER = try Self.certificate(enterprise)
        #expect(leafDER != (try Self.certificate(batch)), "the enterprise certificate names this device")
        let leaf = try Certificate(derEncoded: leafDER)
        let root = try Certificate(derEncoded: try await h.authenticator.attestationAuthority().rootCertificate)
        #expect(root.publicKey.isValidSignature(leaf.signature, for: leaf))
        guard case .packed(_, let sig, _) = enterprise.attestation.statement else {
            Issue.record("packed expected")
            return
        }
        let key = try #require(P256.Signing.PublicKey(leaf.publicKey))
        #expect(
            key.isValidSignature(
                try P256.Signing.ECDSASignature(derRepresentation: sig),
                for: enterprise.attestation.authenticatorData + Fixture.clientDataHash))
    }

    @Test func vendorFacilitatedAttestsOnlyTheConfiguredRPIDs() async throws {
        let (h, platform) = try await Self.enabled()
        let listed = PublicKeyCredentialRpEntity(id: "enterprise.passkeyd.test", name: "Enterprise")
        #expect(
            try await h.makeCredential(try await Self.request(platform, rp: listed, mode: 1)).enterpriseAttestation
                == true)
        let other = try await h.makeCredential(try await Self.request(platform, mode: 1))
        #expect(other.enterpriseAttestation == nil, "another RP gets the batch attestation")
    }

    @Test func refusalsChangeNothing() async throws {
        // Not enabled, not capable (no certificate), an unknown mode.
        let h = Harness { $0.attestation = .x5c }
        let platform = PlatformPIN(h, .two)
        try #require(try await platform.setPIN(PlatformPIN.testPIN) == .success)
        #expect(
            try await h.status(of: .makeCredential, try await Self.request(platform, mode: 2).cbor) == .invalidParameter
        )
        let selfAttesting = Harness()
        #expect(try await PlatformPIN(selfAttesting, .two).info().options["ep"] == nil)
        #expect(
            try await AuthenticatorConfigTests.config(selfAttesting, .enableEnterpriseAttestation, token: nil)
                == .invalidSubcommand)
        #expect(try await AuthenticatorConfigTests.config(h, .enableEnterpriseAttestation, token: nil) == .puatRequired)
        #expect(try await platform.info().options["ep"] == false)
        let acfg = try await platform.grantedToken(pin: PlatformPIN.testPIN, permissions: .acfg)
        #expect(try await AuthenticatorConfigTests.config(h, .enableEnterpriseAttestation, token: acfg) == .success)
        #expect(
            try await h.status(of: .makeCredential, try await Self.request(platform, mode: 3).cbor) == .invalidOption)
        #expect(try await h.store.count() == 0)
        // Reset turns it off again.
        #expect(try await h.status(of: .reset) == .success)
        #expect(try await platform.info().options["ep"] == false)
    }

    @Test func anAuthorityFromBeforeEnterpriseAttestationOffersNone() async throws {
        let store = InMemoryCredentialStore(capacity: 10)
        let first = Harness(store: store) { $0.attestation = .x5c }
        _ = try await first.authenticator.attestationAuthority()
        try await first.authenticator.updateDeviceState {
            $0.attestationAuthority?.enterpriseKey = nil
            $0.attestationAuthority?.enterpriseCertificate = nil
        }
        let reopened = Harness(store: store) { $0.attestation = .x5c }
        #expect(try await PlatformPIN(reopened, .two).info().options["ep"] == nil)
        #expect(
            try await AuthenticatorConfigTests.config(reopened, .enableEnterpriseAttestation, token: nil)
                == .invalidSubcommand)
    }
}
