import CBOR
import Testing

@testable import CTAP

/// The structures on the assertion and registration paths are coded by `@CTAPMap` instead of
/// through `Codable` over `CBORValue` (speed). The `Codable` conformance is still there, so each
/// generated reader and writer is held to it: the same value or the same CTAP 2.1 §8 status for
/// every input, the same map for every value, and `encode(into:)` the same bytes as the map.
@Suite struct CTAPMapCodingTests {
    static let hash = [UInt8](repeating: 0xAB, count: 32)

    /// What the generic path answers: `CTAPStructure`'s reading, then `validate()`.
    static func viaCodable<T: CTAPStructure>(_: T.Type, _ value: CBORValue) -> Result<T, CTAPStatus> {
        do {
            let decoded = try T(from: CBORValueDecoder(value: value))
            try decoded.validate()
            return .success(decoded)
        } catch let status as CTAPStatus {
            return .failure(status)
        } catch {
            return .failure(.cborUnexpectedType)
        }
    }

    static func byMacro<T: CTAPStructure>(_: T.Type, _ value: CBORValue) -> Result<T, CTAPStatus> {
        do throws(CTAPStatus) { return .success(try T(cbor: value)) } catch { return .failure(error) }
    }

    static func encodedViaCodable(_ value: some CTAPStructure) throws -> CBORValue {
        let encoder = CBORValueEncoder()
        try value.encode(to: encoder)
        return encoder.storage.value
    }

    /// Values each member could hold, right and wrong: absence, every CBOR type, edge lengths.
    static let candidates: [CBORValue?] = [
        nil, .null, .undefined, true, 0, 1, 2, -1, .unsigned(UInt64.max), .negative(UInt64.max), "", "public-key",
        .byteString([]), .byteString([1, 2]), .byteString(hash), .byteString([UInt8](repeating: 1, count: 65)),
        [], [5], ["usb"], [["type": "public-key", "id": .byteString([1])]], [["id": .byteString([1])]],
        [["type": "public-key", "id": "text"]],
        [["type": "public-key", "id": .byteString([1]), "transports": ["usb", 5]]],
        [:], ["up": false], ["uv": true, "rk": false, "x": 1], ["up": 1], [1: true], ["credProtect": 2], [5: "x"],
        ["type": "public-key", "id": .byteString([9])], ["id": .byteString([1]), "name": "a", "displayName": "A"],
        ["id": .byteString([UInt8](repeating: 1, count: 65))], ["id": "x"],
        // Registration shapes: RP entities, credential parameters, attestation format lists.
        ["id": "example.com"], ["id": "example.com", "name": 5], ["name": "no id"], ["id": .byteString([1])],
        [["type": "public-key", "alg": -7]],
        [["type": "public-key", "alg": -7], ["type": "x", "alg": .unsigned(UInt64.max)]],
        [["alg": -7]], [["type": "public-key"]], [["type": "public-key", "alg": "x"]], [["type": 1, "alg": -7]],
        ["type": "public-key", "alg": -8], ["packed", "none"], ["packed", 1]
    ]

    /// Every key of `base` replaced in turn by every candidate, plus an unknown key and a non-map.
    static func variants(of base: [CBORValue: CBORValue], keys: [CBORValue]) -> [CBORValue] {
        var out: [CBORValue] = [
            .map(base), .map(base.merging([99: "unknown", "x": 1]) { a, _ in a }), [1, 2], "map", .null
        ]
        for key in keys {
            for candidate in candidates {
                var map = base
                map[key] = candidate
                out.append(.map(map))
            }
        }
        // Two members wrong at once: the first in declaration order decides.
        for (a, b) in zip(keys, keys.dropFirst()) {
            var map = base
            map[a] = .null
            map[b] = nil
            out.append(.map(map))
        }
        return out
    }

    static func expectSameAnswers<T: CTAPStructure & Equatable>(
        _ type: T.Type, base: [CBORValue: CBORValue], keys: [CBORValue]
    ) {
        for input in variants(of: base, keys: keys) {
            let expected = viaCodable(T.self, input)
            let actual = byMacro(T.self, input)
            #expect(expected == actual, "\(T.self) from \(input)")
        }
    }

    @Test func getAssertionRequestReadsAsCodableDoes() {
        let base = GetAssertionRequest(
            rpID: "example.com", clientDataHash: Self.hash, allowList: [.init(id: [1], transports: ["usb"])],
            extensions: ["credProtect": 1], options: .init(up: false, uv: true), pinUvAuthParam: [1, 2],
            pinUvAuthProtocol: 2)
        Self.expectSameAnswers(GetAssertionRequest.self, base: base.cbor.mapValue!, keys: [1, 2, 3, 4, 5, 6, 7])
    }

    @Test func getAssertionResponseReadsAsCodableDoes() {
        let base = GetAssertionResponse(
            credential: .init(id: [1], transports: ["internal"]), authenticatorData: [UInt8](repeating: 0, count: 37),
            signature: [3],
            user: .init(id: [4], name: "alice", displayName: "Alice"), numberOfCredentials: 2, userSelected: true,
            largeBlobKey: [7])
        Self.expectSameAnswers(GetAssertionResponse.self, base: base.cbor.mapValue!, keys: [1, 2, 3, 4, 5, 6, 7])
    }

    @Test func makeCredentialRequestReadsAsCodableDoes() {
        let base = MakeCredentialRequest(
            clientDataHash: Self.hash, rp: .init(id: "example.com", name: "Example"),
            user: .init(id: [4], name: "alice", displayName: "Alice"),
            pubKeyCredParams: [.init(alg: -7), .init(alg: -8)], excludeList: [.init(id: [1], transports: ["usb"])],
            extensions: ["credProtect": 2], options: .init(rk: true, uv: false), pinUvAuthParam: [1, 2],
            pinUvAuthProtocol: 2,
            enterpriseAttestation: 1, attestationFormatsPreference: ["packed", "none"])
        Self.expectSameAnswers(
            MakeCredentialRequest.self, base: base.cbor.mapValue!, keys: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11])
    }

    @Test func nestedStructuresReadAsCodableDoes() {
        Self.expectSameAnswers(
            PublicKeyCredentialRpEntity.self, base: ["id": "example.com", "name": "Example"], keys: ["id", "name"])
        Self.expectSameAnswers(
            PublicKeyCredentialParameters.self, base: ["type": "public-key", "alg": -7], keys: ["type", "alg"])
        Self.expectSameAnswers(
            PublicKeyCredentialDescriptor.self,
            base: ["type": "public-key", "id": .byteString([1]), "transports": ["usb"]],
            keys: ["type", "id", "transports"])
        Self.expectSameAnswers(
            PublicKeyCredentialUserEntity.self,
            base: ["id": .byteString([1]), "name": "a", "displayName": "A"], keys: ["id", "name", "displayName"])
        Self.expectSameAnswers(
            RequestOptions.self, base: ["rk": false, "up": true, "uv": false], keys: ["rk", "up", "uv"])
    }

    @Test func generatedMapsAreTheCodableOnes() throws {
        let requests = [
            GetAssertionRequest(rpID: "example.com", clientDataHash: Self.hash),
            GetAssertionRequest(
                rpID: "a", clientDataHash: Self.hash, allowList: [.init(id: [1]), .init(id: [2], transports: ["nfc"])],
                extensions: ["hmac-secret": true], options: .init(rk: true, up: false, uv: true),
                pinUvAuthParam: [], pinUvAuthProtocol: 1)
        ]
        for request in requests { #expect(try request.cbor == Self.encodedViaCodable(request)) }
        let responses = [
            GetAssertionResponse(credential: .init(id: [1]), authenticatorData: [0], signature: [1]),
            GetAssertionResponse(
                credential: .init(id: [1], type: "x", transports: []), authenticatorData: [0], signature: [1],
                user: .init(id: [2], name: "n"), numberOfCredentials: 3, userSelected: false, largeBlobKey: [9])
        ]
        for response in responses { #expect(try response.cbor == Self.encodedViaCodable(response)) }
        for options in [RequestOptions(), RequestOptions(rk: true), RequestOptions(rk: false, up: true, uv: false)] {
            #expect(try options.cbor == Self.encodedViaCodable(options))
        }
        let user = PublicKeyCredentialUserEntity(id: [1], displayName: "D")
        #expect(try user.cbor == Self.encodedViaCodable(user))
        let registrations = [
            MakeCredentialRequest(
                clientDataHash: Self.hash, rp: .init(id: "a"), user: .init(id: [1]), pubKeyCredParams: []),
            MakeCredentialRequest(
                clientDataHash: Self.hash, rp: .init(id: "example.com", name: "E"),
                user: .init(id: [1], name: "n", displayName: "N"),
                pubKeyCredParams: [.init(alg: -7), .init(alg: 1 << 40, type: "x")],
                excludeList: [.init(id: [1]), .init(id: [2], transports: ["nfc"])],
                extensions: ["hmac-secret": true, "credProtect": 3], options: .init(rk: false, up: true, uv: true),
                pinUvAuthParam: [], pinUvAuthProtocol: 1, enterpriseAttestation: -2, attestationFormatsPreference: [])
        ]
        for request in registrations { #expect(try request.cbor == Self.encodedViaCodable(request)) }
        for rp in [PublicKeyCredentialRpEntity(id: "a"), PublicKeyCredentialRpEntity(id: "", name: "")] {
            #expect(try rp.cbor == Self.encodedViaCodable(rp))
        }
        for parameters in [
            PublicKeyCredentialParameters(alg: -7), PublicKeyCredentialParameters(alg: Int.min, type: "")
        ] {
            #expect(try parameters.cbor == Self.encodedViaCodable(parameters))
        }
        for value in requests as [any CBORRepresentable] + registrations + [user] + responses {
            Self.expectWriterMatchesMap(value)
        }
    }

    /// `encode(into:)` writes what `cbor.encoded` holds: canonical key order, absent members left out.
    static func expectWriterMatchesMap(_ value: some CBORRepresentable) {
        var writer = CBORWriter()
        value.encode(into: &writer)
        #expect(writer.bytes == value.cbor.encoded, "\(value)")
    }

    @Test func everyGeneratedWriterWritesItsMap() {
        let long = String(repeating: "x", count: 30)
        let values: [any CBORRepresentable] = [
            RequestOptions(), RequestOptions(uv: true), RequestOptions(rk: false, up: true, uv: false),
            PublicKeyCredentialRpEntity(id: "a"), PublicKeyCredentialRpEntity(id: long, name: ""),
            PublicKeyCredentialParameters(alg: -7), PublicKeyCredentialParameters(alg: Int.max, type: long),
            PublicKeyCredentialDescriptor(id: [], type: "", transports: ["usb", long]),
            PublicKeyCredentialUserEntity(id: [1], name: long),
            GetAssertionRequest(
                rpID: long, clientDataHash: Self.hash, allowList: [.init(id: [1])], options: .init(up: false),
                pinUvAuthProtocol: 2)
        ]
        for value in values { Self.expectWriterMatchesMap(value) }
    }

    /// `MakeCredentialResponse` has no `Codable` twin (it was always coded by hand): its map reads back as the value it was.
    /// Every sign-in's answer is written by `GetAssertionResponse.encode(into:)`, not through
    /// `CBORValue`: the same bytes, member by member present or absent, for keys of every length.
    @Test func getAssertionResponseWritesWhatItsMapEncodes() {
        let long = [UInt8](repeating: 0x5A, count: 300)
        let users: [PublicKeyCredentialUserEntity?] = [
            nil, .init(id: [4]), .init(id: long, name: "alice"), .init(id: [4], displayName: "Alice"),
            .init(id: [], name: String(repeating: "é", count: 40), displayName: "Ålice 👩‍💻")
        ]
        let credentials: [PublicKeyCredentialDescriptor] = [
            .init(id: [1]), .init(id: long, type: "x"), .init(id: [1], transports: []),
            .init(id: [1, 2], transports: ["usb", "internal", "hybrid"])
        ]
        let counts: [Int?] = [nil, 0, 2, 23, 24, 65_536, -1, Int.max, Int.min]
        var checked = 0
        for credential in credentials {
            for user in users {
                for (index, count) in counts.enumerated() {
                    let response = GetAssertionResponse(
                        credential: credential, authenticatorData: [UInt8](repeating: 1, count: 37 + index),
                        signature: [UInt8](repeating: 3, count: 70),
                        user: user, numberOfCredentials: count,
                        userSelected: index.isMultiple(of: 3) ? nil : index.isMultiple(of: 2),
                        largeBlobKey: index.isMultiple(of: 2) ? nil : [UInt8](repeating: 7, count: 32))
                    var writer = CBORWriter(prefix: [0x00])
                    response.encode(into: &writer)
                    #expect(writer.bytes == [0x00] + response.cbor.encoded, "\(response)")
                    checked += 1
                }
            }
        }
        #expect(checked == credentials.count * users.count * counts.count)
    }

    @Test func makeCredentialResponseRoundTrips() throws {
        let responses = [
            MakeCredentialResponse(attestation: .init(authenticatorData: [0, 1], statement: .none)),
            MakeCredentialResponse(
                attestation: .init(authenticatorData: [2], statement: .packed(alg: -7, sig: [3], x5c: [[4], [5]])),
                enterpriseAttestation: true, largeBlobKey: [6], unsignedExtensionOutputs: ["x": 1])
        ]
        for response in responses {
            #expect(try MakeCredentialResponse(cbor: CBORDecoder.decode(response.cbor.encoded)) == response)
        }
        let map = try #require(responses[1].cbor.mapValue)
        for key: CBORValue in [1, 2, 3] {
            var missing = map
            missing[key] = nil
            #expect(throws: CTAPStatus.missingParameter) { _ = try MakeCredentialResponse(cbor: .map(missing)) }
        }
        var wrong = map
        wrong[4] = 1
        #expect(throws: CTAPStatus.cborUnexpectedType) { _ = try MakeCredentialResponse(cbor: .map(wrong)) }
    }
}
