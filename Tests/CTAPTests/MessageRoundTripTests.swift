import CBOR
import CTAP
import Testing

/// Typed messages encode and parse back to themselves: the client side reuses them.
@Suite struct MessageRoundTripTests {
    let hash = [UInt8](repeating: 0xAB, count: 32)

    @Test func makeCredentialRequestRoundTrips() throws {
        let request = MakeCredentialRequest(
            clientDataHash: hash, rp: .init(id: "example.com", name: "Example"),
            user: .init(id: [1, 2, 3], name: "alice", displayName: "Alice"),
            pubKeyCredParams: [.init(alg: -7), .init(alg: -8)], excludeList: [.init(id: [9, 9])],
            extensions: ["credProtect": 2], options: .init(rk: true, uv: false),
            pinUvAuthParam: [1, 2], pinUvAuthProtocol: 2, attestationFormatsPreference: ["packed"])
        #expect(try MakeCredentialRequest(cbor: CBORDecoder.decode(request.cbor.encoded)) == request)
    }

    @Test func getAssertionRequestAndResponseRoundTrip() throws {
        let request = GetAssertionRequest(
            rpID: "example.com", clientDataHash: hash, allowList: [.init(id: [1], transports: ["usb"])],
            options: .init(up: false))
        #expect(try GetAssertionRequest(cbor: CBORDecoder.decode(request.cbor.encoded)) == request)
        let response = GetAssertionResponse(
            credential: .init(id: [1]), authenticatorData: [UInt8](repeating: 0, count: 37), signature: [3],
            user: .init(id: [4]), numberOfCredentials: 2)
        #expect(try GetAssertionResponse(cbor: response.cbor) == response)
    }

    @Test func getInfoRoundTripsAndUsesCanonicalKeyOrder() throws {
        let info = GetInfoResponse(
            versions: ["FIDO_2_1"], aaguid: [UInt8](repeating: 1, count: 16), options: ["rk": true, "clientPin": false],
            maxMsgSize: 7609, pinUvAuthProtocols: [2, 1], algorithms: [.init(alg: -7)], minPINLength: 4,
            remainingDiscoverableCredentials: 25)
        let bytes = info.cbor.encoded
        #expect(try GetInfoResponse(cbor: CBORDecoder.decode(bytes)) == info)
        // Top-level keys 0x01…0x14 appear in ascending order.
        #expect(bytes[0] == 0xA8 && bytes[1] == 0x01)
    }

    @Test func authenticatorDataRoundTripsWithAttestedDataAndExtensions() throws {
        let data = AuthenticatorData(
            rpIDHash: hash, flags: [.userPresent, .userVerified], signCount: 0x0102_0304,
            attestedCredentialData: .init(
                aaguid: [UInt8](repeating: 7, count: 16), credentialID: [1, 2, 3],
                publicKey: .ed25519(x: [UInt8](repeating: 5, count: 32))),
            extensions: ["credProtect": 1])
        #expect(data.flags == [.userPresent, .userVerified, .attestedCredentialData, .extensionData])
        #expect(try AuthenticatorData(bytes: data.bytes) == data)
        #expect(Array(data.bytes[33..<37]) == [1, 2, 3, 4], "counter is big-endian")
    }

    @Test func authenticatorDataRejectsInconsistentBytes() {
        let plain = AuthenticatorData(rpIDHash: hash, flags: [.userPresent], signCount: 1).bytes
        #expect(throws: CTAPStatus.invalidParameter) { try AuthenticatorData(bytes: Array(plain.prefix(36))) }
        #expect(throws: CTAPStatus.invalidParameter) { try AuthenticatorData(bytes: plain + [0]) }
        var claimsAttested = plain
        claimsAttested[32] |= AuthenticatorData.Flags.attestedCredentialData.rawValue
        #expect(throws: CTAPStatus.invalidParameter) { try AuthenticatorData(bytes: claimsAttested) }
    }

    @Test func coseKeysRoundTripAndRejectWhatTheyCannotBe() throws {
        let p256 = COSEKey.p256(
            x: [UInt8](repeating: 1, count: 32), y: [UInt8](repeating: 2, count: 32), algorithm: .es256)
        #expect(try COSEKey(cbor: p256.cbor) == p256)
        for key in [
            COSEKey.p384(x: [UInt8](repeating: 3, count: 48), y: [UInt8](repeating: 4, count: 48)),
            .p521(x: [UInt8](repeating: 5, count: 66), y: [UInt8](repeating: 6, count: 66))
        ] {
            #expect(try COSEKey(cbor: key.cbor) == key)
        }
        // RFC 9053 §7.1: crv 2 is P-384, 3 is P-521; a coordinate of the wrong size is not a point.
        #expect(
            COSEKey.p384(x: [], y: []).cbor.mapValue?[-1] == 2 && COSEKey.p521(x: [], y: []).cbor.mapValue?[3] == -36)
        let shortP384: CBORValue = [
            1: 2, 3: -35, -1: 2, -2: .byteString([UInt8](repeating: 0, count: 32)),
            -3: .byteString([UInt8](repeating: 0, count: 32))
        ]
        #expect(throws: CTAPStatus.invalidParameter) { try COSEKey(cbor: shortP384) }
        // RFC 9053 §7.1 labels: kty 1, alg 3, crv -1, x -2, y -3.
        #expect(p256.cbor.mapValue?[1] == 2 && p256.cbor.mapValue?[-1] == 1)
        // kty RSA (RFC 8230 §4) reads as RS256 or PS256 only; an unknown kty is not a key this reads.
        let rsa: CBORValue = [1: 3, 3: -257, -1: .byteString([1]), -2: .byteString([1])]
        #expect(try COSEKey(cbor: rsa) == .rsa(n: [1], e: [1], algorithm: .rs256))
        #expect(throws: CTAPStatus.unsupportedAlgorithm) {
            try COSEKey(cbor: [1: 3, 3: -47, -1: .byteString([1]), -2: .byteString([1])])
        }
        #expect(throws: CTAPStatus.unsupportedAlgorithm) { try COSEKey(cbor: [1: 4, 3: -257, -1: .byteString([1])]) }
        let short: CBORValue = [1: 1, 3: -8, -1: 6, -2: .byteString([1, 2])]
        #expect(throws: CTAPStatus.invalidParameter) { try COSEKey(cbor: short) }
        let missingY: CBORValue = [1: 2, 3: -7, -1: 1, -2: .byteString([UInt8](repeating: 0, count: 32))]
        #expect(throws: CTAPStatus.missingParameter) { try COSEKey(cbor: missingY) }
    }

    @Test func statusNamesFollowTheSpec() {
        #expect(CTAPStatus.pinAuthBlocked.specName == "CTAP2_ERR_PIN_AUTH_BLOCKED")
        #expect(CTAPStatus(rawValue: 0x2D) == .keepaliveCancel)
        #expect("\(CTAPStatus.noCredentials)" == "CTAP2_ERR_NO_CREDENTIALS (0x2E)")
    }
}
