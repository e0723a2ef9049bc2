import CBOR
import CTAP
import Crypto
import Testing

@testable import Authenticator

/// CTAP1/U2F (FIDO U2F Raw Message Formats §4–§6) and its interplay with CTAP2 (CTAP 2.1 §10).
struct U2FTests {
    static let challenge = [UInt8](repeating: 0xC1, count: 32)
    static let application = Array(SHA256.hash(data: Array(Fixture.rp.id.utf8)))

    struct Registration {
        let publicKey: [UInt8]
        let keyHandle: [UInt8]
        let certificate: [UInt8]
        let signature: [UInt8]
    }

    static func send(_ h: Harness, _ request: U2FRequest) async -> (StatusWord?, [UInt8]) {
        let reply = await h.authenticator.handleAPDU(request.apdu.bytes, from: .platform, progress: { _ in })
        let status = StatusWord(rawValue: UInt16(reply[reply.count - 2]) << 8 | UInt16(reply[reply.count - 1]))
        return (status, Array(reply.dropLast(2)))
    }

    static func register(_ h: Harness, application: [UInt8] = application) async throws -> Registration {
        let (status, data) = await send(
            h, .register(U2FRegisterRequest(challenge: challenge, application: application)))
        try #require(status == .noError)
        #expect(data[0] == 0x05)
        let publicKey = Array(data[1..<66])
        let length = Int(data[66])
        let keyHandle = Array(data[67..<(67 + length)])
        let rest = Array(data[(67 + length)...])
        // The certificate is one DER SEQUENCE with a two-byte length; the signature follows it.
        try #require(rest[0] == 0x30 && rest[1] == 0x82)
        let certificateLength = 4 + (Int(rest[2]) << 8 | Int(rest[3]))
        return Registration(
            publicKey: publicKey, keyHandle: keyHandle, certificate: Array(rest[..<certificateLength]),
            signature: Array(rest[certificateLength...]))
    }

    static func authenticate(
        _ h: Harness, _ control: U2FAuthenticateRequest.Control, keyHandle: [UInt8],
        application: [UInt8] = application
    ) async -> (StatusWord?, [UInt8]) {
        await send(
            h,
            .authenticate(
                U2FAuthenticateRequest(
                    control: control, challenge: challenge, application: application, keyHandle: keyHandle)))
    }

    static func key(_ uncompressed: [UInt8]) throws -> P256.Signing.PublicKey {
        try P256.Signing.PublicKey(x963Representation: uncompressed)
    }

    @Test func versionIsU2FV2() async {
        let (status, data) = await Self.send(Harness(), .version)
        #expect(status == .noError)
        #expect(data == Array("U2F_V2".utf8))
    }

    @Test func registrationIsSignedByTheAttestationKeyItsCertificateCarries() async throws {
        let h = Harness()
        let registration = try await Self.register(h)
        let identity = U2FAttestationIdentity.batch
        #expect(identity.certificate == registration.certificate)
        let attestationKey = try P256.Signing.PrivateKey(rawRepresentation: identity.privateKey).publicKey
        // The certificate carries the attestation public key (its SubjectPublicKeyInfo's point).
        let point = Array(attestationKey.x963Representation)
        #expect(
            (0...(registration.certificate.count - point.count)).contains {
                Array(registration.certificate[$0..<($0 + point.count)]) == point
            })
        let signed = [0] + Self.application + Self.challenge + registration.keyHandle + registration.publicKey
        #expect(
            attestationKey.isValidSignature(
                try P256.Signing.ECDSASignature(derRepresentation: registration.signature), for: signed))
        // Made once: a second registration shows the same certificate.
        #expect(try await Self.register(h).certificate == registration.certificate)
    }

    /// Issue 33, F5: one batch identity for every installation, so the certificate links no
    /// two accounts of one user: two devices (two keystores), and one device before and after a
    /// reset, show the same certificate.
    @Test func everyDeviceShowsTheOneBatchCertificate() async throws {
        let first = Harness()
        let second = Harness()
        let certificate = try await Self.register(first).certificate
        #expect(try await Self.register(second).certificate == certificate)
        #expect(certificate == U2FAttestationIdentity.batch.certificate)
        // The certificate is the batch key's, and names no installation.
        let spki = try P256.Signing.PrivateKey(rawRepresentation: U2FAttestationIdentity.batch.privateKey).publicKey
            .x963Representation
        #expect(
            (0...(certificate.count - spki.count)).contains {
                Array(certificate[$0..<($0 + spki.count)]) == Array(spki)
            })
    }

    @Test func authenticationSignsWithTheRegisteredKeyAndCountsUp() async throws {
        let h = Harness()
        let registration = try await Self.register(h)
        var counters: [UInt32] = []
        for _ in 0..<2 {
            let (status, data) = await Self.authenticate(h, .enforceUserPresence, keyHandle: registration.keyHandle)
            try #require(status == .noError)
            #expect(data[0] == 0x01)
            let counter = data[1..<5].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            counters.append(counter)
            let signed = Self.application + [0x01] + Array(data[1..<5]) + Self.challenge
            #expect(
                try Self.key(registration.publicKey).isValidSignature(
                    try P256.Signing.ECDSASignature(derRepresentation: Array(data[5...])), for: signed))
        }
        #expect(counters[1] > counters[0])
    }

    @Test func checkOnlyTellsOursFromForeignHandles() async throws {
        let h = Harness()
        let registration = try await Self.register(h)
        #expect(await Self.authenticate(h, .checkOnly, keyHandle: registration.keyHandle).0 == .conditionsNotSatisfied)
        // Another application's parameter, an altered handle, a handle of another device.
        #expect(
            await Self.authenticate(
                h, .checkOnly, keyHandle: registration.keyHandle, application: [UInt8](repeating: 1, count: 32)
            ).0 == .wrongData)
        var altered = registration.keyHandle
        altered[20] ^= 1
        #expect(await Self.authenticate(h, .checkOnly, keyHandle: altered).0 == .wrongData)
        #expect(
            await Self.authenticate(h, .enforceUserPresence, keyHandle: try await Self.register(Harness()).keyHandle).0
                == .wrongData)
    }

    @Test func presenceIsEnforcedUnlessTheHostSaysNot() async throws {
        let h = Harness(presence: [.approved, .denied])
        let registration = try await Self.register(h)
        // Denied presence: the host is told to ask again.
        #expect(
            await Self.authenticate(h, .enforceUserPresence, keyHandle: registration.keyHandle).0
                == .conditionsNotSatisfied)
        #expect(
            await Self.send(h, .register(U2FRegisterRequest(challenge: Self.challenge, application: Self.application)))
                .0 == .conditionsNotSatisfied)
        let (status, data) = await Self.authenticate(h, .dontEnforceUserPresence, keyHandle: registration.keyHandle)
        #expect(status == .noError)
        #expect(data[0] == 0x00)
    }

    @Test func aU2FCredentialSignsThroughCTAP2GetAssertion() async throws {
        let h = Harness()
        let registration = try await Self.register(h)
        let (_, before) = await Self.authenticate(h, .dontEnforceUserPresence, keyHandle: registration.keyHandle)
        let assertion = try await h.getAssertion(Fixture.getAssertion(allow: [registration.keyHandle]))
        let authData = try AuthenticatorData(bytes: assertion.authenticatorData)
        #expect(authData.rpIDHash == Self.application)
        #expect(authData.signCount > before[1..<5].reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
        let x963 = registration.publicKey
        let cose = COSEKey.p256(x: Array(x963[1..<33]), y: Array(x963[33...]), algorithm: .es256)
        #expect(
            try verify(
                signature: assertion.signature, over: assertion.authenticatorData + Fixture.clientDataHash, with: cose))
        // Another RP's request does not find it.
        await #expect(throws: CTAPStatus.noCredentials) {
            try await h.getAssertion(Fixture.getAssertion(rpID: "other.example", allow: [registration.keyHandle]))
        }
    }

    @Test func aNonResidentCTAP2CredentialSignsThroughU2F() async throws {
        let h = Harness()
        let made = try await h.makeCredential(Fixture.makeCredential(rk: false))
        let authData = try AuthenticatorData(bytes: made.attestation.authenticatorData)
        let attested = try #require(authData.attestedCredentialData)
        let (status, data) = await Self.authenticate(h, .enforceUserPresence, keyHandle: attested.credentialID)
        #expect(status == .noError)
        let signed = Self.application + [0x01] + Array(data[1..<5]) + Self.challenge
        #expect(try verify(signature: Array(data[5...]), over: signed, with: attested.publicKey))
        // A credential that needs user verification (credProtect 3) is not usable without it.
        let protected = try await h.makeCredential(Fixture.makeCredential(rk: false, extensions: ["credProtect": 3]))
        let protectedID = try #require(
            try AuthenticatorData(bytes: protected.attestation.authenticatorData).attestedCredentialData?.credentialID)
        #expect(await Self.authenticate(h, .checkOnly, keyHandle: protectedID).0 == .wrongData)
        // Nor is one of another algorithm: U2F signs with ES256 only.
        let eddsa = try await h.makeCredential(Fixture.makeCredential(algs: [-8], rk: false))
        let eddsaID = try #require(
            try AuthenticatorData(bytes: eddsa.attestation.authenticatorData).attestedCredentialData?.credentialID)
        #expect(await Self.authenticate(h, .checkOnly, keyHandle: eddsaID).0 == .wrongData)
    }

    @Test func aDiscoverableES256CredentialSignsThroughU2FOnItsOwnCounter() async throws {
        let h = Harness()
        let made = try await h.makeCredential(Fixture.makeCredential(rk: true))
        let attested = try #require(
            try AuthenticatorData(bytes: made.attestation.authenticatorData).attestedCredentialData)
        let (status, data) = await Self.authenticate(h, .enforceUserPresence, keyHandle: attested.credentialID)
        #expect(status == .noError)
        #expect(data[1..<5].reduce(UInt32(0)) { $0 << 8 | UInt32($1) } == 1)
        // Its own counter: what the store keeps is at least the count U2F used (a leased mark,
        // SignatureCounterLease), and the next CTAP2 assertion counts on from it.
        #expect(try #require(try await h.store.credential(id: attested.credentialID)?.signCount) >= 1)
        let next = try await h.getAssertion(Fixture.getAssertion(allow: [attested.credentialID]))
        #expect(try AuthenticatorData(bytes: next.authenticatorData).signCount == 2)
        // And the same device after a restart counts on above the stored mark.
        let (againStatus, again) = await Self.authenticate(
            Harness(store: h.store), .enforceUserPresence, keyHandle: attested.credentialID)
        try #require(againStatus == .noError && again.count >= 5)
        #expect(again[1..<5].reduce(UInt32(0)) { $0 << 8 | UInt32($1) } > 2)
        // Its RP is the application: another application's parameter does not find it.
        #expect(
            await Self.authenticate(
                h, .checkOnly, keyHandle: attested.credentialID, application: [UInt8](repeating: 2, count: 32)
            ).0 == .wrongData)
    }

    @Test func malformedAPDUsGetTheirStatusWord() async {
        let h = Harness()
        for (bytes, expected): ([UInt8], StatusWord) in [
            ([0, 1, 0], .wrongLength), ([0x80, 3, 0, 0], .classNotSupported), ([0, 9, 0, 0], .instructionNotSupported),
            ([0, 1, 0, 0, 0, 0, 1, 7], .wrongLength)
        ] {
            let reply = await h.authenticator.handleAPDU(bytes, from: .platform, progress: { _ in })
            #expect(reply == expected.bytes, "\(bytes)")
        }
    }

    @Test func theU2FProfileAnswersNoCTAP2Command() async throws {
        let h = Harness(profile: .u2f)
        #expect(try await h.status(of: .getInfo) == .invalidCommand)
        #expect(h.authenticator.protocols == .ctap1)
        #expect(await Self.send(h, .version).0 == .noError)
    }
}
