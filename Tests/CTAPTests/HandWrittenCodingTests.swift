import CBOR
@testable import CTAP
import Testing

/// The structures on the assertion path are coded by hand instead of through `Codable`
/// over `CBORValue` (speed). The `Codable` conformance is still there, so each hand-written
/// reader and writer is held to it: the same value or the same CTAP 2.1 §8 status for every
/// input, the same map for every value.
@Suite struct HandWrittenCodingTests {
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

    static func byHand<T: CTAPStructure>(_: T.Type, _ value: CBORValue) -> Result<T, CTAPStatus> {
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
        [["type": "public-key", "id": "text"]], [["type": "public-key", "id": .byteString([1]), "transports": ["usb", 5]]],
        [:], ["up": false], ["uv": true, "rk": false, "x": 1], ["up": 1], [1: true], ["credProtect": 2], [5: "x"],
        ["type": "public-key", "id": .byteString([9])], ["id": .byteString([1]), "name": "a", "displayName": "A"],
        ["id": .byteString([UInt8](repeating: 1, count: 65))], ["id": "x"],
    ]

    /// Every key of `base` replaced in turn by every candidate, plus an unknown key and a non-map.
    static func variants(of base: [CBORValue: CBORValue], keys: [CBORValue]) -> [CBORValue] {
        var out: [CBORValue] = [.map(base), .map(base.merging([99: "unknown", "x": 1]) { a, _ in a }), [1, 2], "map", .null]
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

    static func expectSameAnswers<T: CTAPStructure & Equatable>(_ type: T.Type, base: [CBORValue: CBORValue], keys: [CBORValue]) {
        for input in variants(of: base, keys: keys) {
            let expected = viaCodable(T.self, input), actual = byHand(T.self, input)
            #expect(expected == actual, "\(T.self) from \(input)")
        }
    }

    @Test func getAssertionRequestReadsAsCodableDoes() {
        let base = GetAssertionRequest(
            rpID: "example.com", clientDataHash: Self.hash, allowList: [.init(id: [1], transports: ["usb"])],
            extensions: ["credProtect": 1], options: .init(up: false, uv: true), pinUvAuthParam: [1, 2], pinUvAuthProtocol: 2)
        Self.expectSameAnswers(GetAssertionRequest.self, base: base.cbor.mapValue!, keys: [1, 2, 3, 4, 5, 6, 7])
    }

    @Test func getAssertionResponseReadsAsCodableDoes() {
        let base = GetAssertionResponse(
            credential: .init(id: [1], transports: ["internal"]), authenticatorData: [UInt8](repeating: 0, count: 37), signature: [3],
            user: .init(id: [4], name: "alice", displayName: "Alice"), numberOfCredentials: 2, userSelected: true, largeBlobKey: [7])
        Self.expectSameAnswers(GetAssertionResponse.self, base: base.cbor.mapValue!, keys: [1, 2, 3, 4, 5, 6, 7])
    }

    @Test func nestedStructuresReadAsCodableDoes() {
        Self.expectSameAnswers(PublicKeyCredentialDescriptor.self,
                               base: ["type": "public-key", "id": .byteString([1]), "transports": ["usb"]], keys: ["type", "id", "transports"])
        Self.expectSameAnswers(PublicKeyCredentialUserEntity.self,
                               base: ["id": .byteString([1]), "name": "a", "displayName": "A"], keys: ["id", "name", "displayName"])
        Self.expectSameAnswers(RequestOptions.self, base: ["rk": false, "up": true, "uv": false], keys: ["rk", "up", "uv"])
    }

    @Test func handWrittenMapsAreTheCodableOnes() throws {
        let requests = [
            GetAssertionRequest(rpID: "example.com", clientDataHash: Self.hash),
            GetAssertionRequest(rpID: "a", clientDataHash: Self.hash, allowList: [.init(id: [1]), .init(id: [2], transports: ["nfc"])],
                                extensions: ["hmac-secret": true], options: .init(rk: true, up: false, uv: true),
                                pinUvAuthParam: [], pinUvAuthProtocol: 1),
        ]
        for request in requests { #expect(try request.cbor == Self.encodedViaCodable(request)) }
        let responses = [
            GetAssertionResponse(credential: .init(id: [1]), authenticatorData: [0], signature: [1]),
            GetAssertionResponse(credential: .init(id: [1], type: "x", transports: []), authenticatorData: [0], signature: [1],
                                 user: .init(id: [2], name: "n"), numberOfCredentials: 3, userSelected: false, largeBlobKey: [9]),
        ]
        for response in responses { #expect(try response.cbor == Self.encodedViaCodable(response)) }
        for options in [RequestOptions(), RequestOptions(rk: true), RequestOptions(rk: false, up: true, uv: false)] {
            #expect(try options.cbor == Self.encodedViaCodable(options))
        }
        let user = PublicKeyCredentialUserEntity(id: [1], displayName: "D")
        #expect(try user.cbor == Self.encodedViaCodable(user))
    }
}
