import CBOR
import Testing

/// RFC 8949 Appendix A, kept in `Fixtures/cbor/rfc8949-appendix-a.json`.
@Suite("RFC 8949 Appendix A vectors")
struct RFC8949AppendixATests {
    static func vectors() throws -> [DecodingVector] {
        try Fixture.load("rfc8949-appendix-a.json", as: VectorFile.self).vectors
    }

    @Test(
        "Every vector CTAP2 can carry decodes to its value and re-encodes to the same bytes",
        arguments: try vectors().filter { $0.value != nil })
    func decodesAndReencodes(_ vector: DecodingVector) throws {
        let bytes = try vector.bytes
        let expected = try #require(vector.value).cbor()
        let decoded = try CBORDecoder.decode(bytes)
        #expect(decoded == expected)
        // Appendix A writes every accepted vector in shortest form with sorted keys.
        #expect(Hex.string(CBOREncoder.encode(expected)) == vector.hex)
    }

    @Test(
        "Floats, tags, other simple values and indefinite lengths are refused with the named error",
        arguments: try vectors().filter { $0.value == nil })
    func rejects(_ vector: DecodingVector) throws {
        let bytes = try vector.bytes
        let expected = try #require(
            vector.expectedError, "fixture names an unknown CBORError: \(vector.error ?? "none")")
        #expect(throws: expected) { try CBORDecoder.decode(bytes) }
    }

    @Test("The fixture holds the integer extremes and both kinds of vector")
    func fixtureCoverage() throws {
        let all = try Self.vectors()
        let hexes = Set(all.map(\.hex))
        #expect(hexes.contains("1bffffffffffffffff"))  // 2^64 - 1
        #expect(hexes.contains("3bffffffffffffffff"))  // -2^64
        #expect(all.filter { $0.value != nil }.count == 38)
        #expect(all.filter { $0.error != nil }.count == 43)
    }

    @Test("2^64 - 1 and -2^64 decode to the extremes of the value type")
    func integerExtremes() throws {
        #expect(try CBORDecoder.decode(Hex.bytes("1bffffffffffffffff")) == .unsigned(.max))
        #expect(try CBORDecoder.decode(Hex.bytes("3bffffffffffffffff")) == .negative(.max))
        // -2^64 does not fit in Int; intValue says so instead of trapping.
        #expect(CBORValue.negative(.max).intValue == nil)
        #expect(CBORValue.unsigned(.max).intValue == nil)
    }
}
