import CBOR
import CTAP
import Crypto
import Testing

@testable import Authenticator

/// previewSign, version 4 (docs/interop.md): generated signing keys and their signatures.
@Suite struct PreviewSignTests {
    static func generate(_ h: Harness, algorithms: [Int] = [-9, -7], flags: Int = 0, rk: Bool = false) async throws
        -> (credentialID: [UInt8], algorithm: Int, keyHandle: [UInt8], publicKey: COSEKey)
    {
        var extensions = ExtensionMap()
        extensions.setMakeCredentialInput(
            PreviewSign.self, PreviewSignGenerateKey(algorithms: algorithms, flags: flags))
        let made = try await h.makeCredential(Fixture.makeCredential(rk: rk, extensions: extensions))
        let authData = try AuthenticatorData(bytes: made.attestation.authenticatorData)
        let chosen = try #require(try authData.extensionOutputs().makeCredentialOutput(PreviewSign.self))
        let unsigned = try #require(
            try made.unsignedExtensionOutputs.makeCredentialOutput(PreviewSignAttestationReader.self))
        let attestation = try #require(try CBORDecoder.decode(unsigned.attestationObject).mapValue)
        #expect(attestation[1] == "none")
        guard case .byteString(let innerBytes)? = attestation[2] else { throw CTAPStatus.invalidCBOR }
        let inner = try AuthenticatorData(bytes: innerBytes)
        let generated = try #require(inner.attestedCredentialData)
        #expect(inner.signCount == 0 && inner.rpIDHash == authData.rpIDHash)
        #expect(
            try inner.extensionOutputs().makeCredentialOutput(PreviewSign.self)
                == PreviewSignGeneratedKey(algorithm: chosen.algorithm, flags: flags))
        return (
            try #require(authData.attestedCredentialData).credentialID, chosen.algorithm, generated.credentialID,
            generated.publicKey
        )
    }

    static func sign(
        _ h: Harness, credential: [UInt8]?, keyHandle: [UInt8]?, data: [UInt8]?, arguments: [UInt8]? = nil,
        up: Bool = false
    ) async throws -> (CTAPStatus, [UInt8]?) {
        var request = Fixture.getAssertion(allow: credential.map { [$0] } ?? [], up: up)
        var extensions = ExtensionMap()
        extensions.setGetAssertionInput(
            PreviewSign.self,
            PreviewSignSignRequest(keyHandle: keyHandle, toBeSigned: data, additionalArguments: arguments))
        request.extensions = extensions
        let (status, body) = try await h.send(.getAssertion, request.cbor)
        guard status == .success, let body else { return (status, nil) }
        let authData = try AuthenticatorData(bytes: try GetAssertionResponse(cbor: body).authenticatorData)
        return (status, try authData.extensionOutputs().getAssertionOutput(PreviewSign.self)?.signature)
    }

    @Test func aGeneratedKeySignsTheRPsDataAndOnlyWithItsCredential() async throws {
        let h = Harness(presence: Array(repeating: .approved, count: 8))
        let key = try await Self.generate(h)
        #expect(key.algorithm == -9, "the RP's first algorithm the device offers")
        #expect(key.publicKey.algorithm == .esp256)
        let data: [UInt8] = Array("sign me".utf8)
        let (status, signature) = try await Self.sign(
            h, credential: key.credentialID, keyHandle: key.keyHandle, data: data)
        #expect(status == .success)
        #expect(try verify(signature: try #require(signature), over: data, with: key.publicKey))
        // The handle of one credential does not open with another.
        let other = try await Self.generate(h, algorithms: [-7])
        #expect(other.algorithm == -7)
        #expect(
            try await Self.sign(h, credential: other.credentialID, keyHandle: key.keyHandle, data: data).0
                == .invalidCredential)
    }

    @Test func badGenerateRequestsCreateNothing() async throws {
        let h = Harness(presence: Array(repeating: .approved, count: 4))
        for flags in [0b010, 0b100, 0b011, 0b111, 8] {
            var extensions = ExtensionMap()
            extensions.setMakeCredentialInput(PreviewSign.self, PreviewSignGenerateKey(algorithms: [-9], flags: flags))
            #expect(
                try await h.status(of: .makeCredential, Fixture.makeCredential(extensions: extensions).cbor)
                    == .invalidOption)
        }
        var unsupported = ExtensionMap()
        unsupported.setMakeCredentialInput(
            PreviewSign.self, PreviewSignGenerateKey(algorithms: [-18, -257, -8, -65700]))
        #expect(
            try await h.status(of: .makeCredential, Fixture.makeCredential(extensions: unsupported).cbor)
                == .unsupportedAlgorithm)
        #expect(await h.store.count() == 0)
    }

    @Test func signingNeedsAnAllowListBothMembersAndTheKeysPresenceOrVerification() async throws {
        let h = Harness(presence: Array(repeating: .approved, count: 8))
        let key = try await Self.generate(h, flags: 0b001, rk: true)
        #expect(try await Self.sign(h, credential: nil, keyHandle: key.keyHandle, data: [1]).0 == .invalidOption)
        #expect(try await Self.sign(h, credential: key.credentialID, keyHandle: nil, data: [1]).0 == .invalidOption)
        #expect(
            try await Self.sign(h, credential: key.credentialID, keyHandle: key.keyHandle, data: nil).0
                == .invalidOption)
        #expect(
            try await Self.sign(h, credential: key.credentialID, keyHandle: key.keyHandle, data: [1], up: false).0
                == .upRequired)
        #expect(
            try await Self.sign(h, credential: key.credentialID, keyHandle: key.keyHandle, data: [1], up: true).0
                == .success)
        let verified = try await Self.generate(h, flags: 0b101)
        #expect(
            try await Self.sign(
                h, credential: verified.credentialID, keyHandle: verified.keyHandle, data: [1], up: true
            ).0 == .puatRequired)
    }
}

extension PreviewSignTests {
    @Test(arguments: [-300, -70009]) func aSplitKeySignsTheRPsDigestAsESP256(_ algorithm: Int) async throws {
        let h = Harness(presence: Array(repeating: .approved, count: 4))
        let key = try await Self.generate(h, algorithms: [algorithm, -9])
        #expect(key.algorithm == algorithm)
        #expect(key.publicKey.algorithm == .esp256, "a verifier checks ESP256-split signatures as ESP256")
        let message: [UInt8] = Array("the RP hashed this".utf8)
        let (status, signature) = try await Self.sign(
            h, credential: key.credentialID, keyHandle: key.keyHandle, data: Array(SHA256.hash(data: message)))
        #expect(status == .success)
        #expect(try verify(signature: try #require(signature), over: message, with: key.publicKey))
        #expect(
            try await Self.sign(h, credential: key.credentialID, keyHandle: key.keyHandle, data: message).0
                == .invalidParameter,
            "a digest of another length")
    }

    @Test func anARKGKeyIsAPublicSeedAndSignsOnlyWithArgumentsItDerivesFrom() async throws {
        let h = Harness(presence: Array(repeating: .approved, count: 8))
        let key = try await Self.generate(h, algorithms: [-65539, -9])
        #expect(key.algorithm == -65539)
        guard case .arkgP256(let seed) = key.publicKey else {
            Issue.record("not an ARKG public seed: \(key.publicKey)")
            return
        }
        #expect(
            seed.derivedKeyAlgorithm == .esp256 && seed.blindingKey.count == 64 && seed.encapsulationKey.count == 64)
        let digest = Array(SHA256.hash(data: [1, 2, 3]))
        func sign(_ arguments: [UInt8]?) async throws -> CTAPStatus {
            try await Self.sign(
                h, credential: key.credentialID, keyHandle: key.keyHandle, data: digest, arguments: arguments
            ).0
        }
        let foreignHandle = ARKGTests.vectors[0].keyHandle
        #expect(try await sign(nil) == .missingParameter)
        #expect(
            try await sign(COSESignArgs(algorithm: nil, arkgKeyHandle: hex(foreignHandle), arkgContext: []).encoded)
                == .invalidCredential)
        #expect(
            try await sign(COSESignArgs(algorithm: -65538, arkgKeyHandle: hex(foreignHandle), arkgContext: []).encoded)
                == .invalidCredential)
        #expect(
            try await sign(COSESignArgs(algorithm: -65539, arkgKeyHandle: nil, arkgContext: []).encoded)
                == .invalidCredential)
        #expect(
            try await sign(COSESignArgs(algorithm: -65539, arkgKeyHandle: hex(foreignHandle), arkgContext: []).encoded)
                == .invalidCredential,
            "a key handle another seed made")
        #expect(try await sign([0xA1, 0x03]) == .invalidCBOR)
    }
}

/// Reads previewSign's unsigned makeCredential output through the typed map.
enum PreviewSignAttestationReader: CTAPExtension {
    static let identifier = PreviewSign.identifier
    typealias MakeCredentialOutput = PreviewSignAttestation
}
