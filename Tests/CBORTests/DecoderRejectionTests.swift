import CBOR
import Testing

/// Inputs the strict decoder refuses, and the non-canonical ones it deliberately accepts.
@Suite("Decoder rejections")
struct DecoderRejectionTests {
    static func rejections() throws -> [DecodingVector] {
        try Fixture.load("decoder-rejections.json", as: VectorFile.self).vectors
    }

    static func nonCanonical() throws -> [DecodingVector] {
        try Fixture.load("decoder-accepts-noncanonical.json", as: VectorFile.self).vectors
    }

    @Test("Each malformed input throws the CBORError its fixture names", arguments: try rejections())
    func rejects(_ vector: DecodingVector) throws {
        let bytes = try vector.bytes
        let expected = try #require(
            vector.expectedError, "fixture names an unknown CBORError: \(vector.error ?? "none")")
        #expect(throws: expected) { try CBORDecoder.decode(bytes) }
    }

    @Test("Every CBORError case is exercised by the rejection fixture")
    func everyErrorCovered() throws {
        let named = Set(try Self.rejections().compactMap(\.expectedError))
        let all: Set<CBORError> = [
            .truncated, .trailingBytes, .indefiniteLength, .reservedAdditionalInfo, .invalidUTF8,
            .duplicateMapKey, .nestingTooDeep, .lengthExceedsInput, .unsupportedType
        ]
        #expect(named == all)
    }

    /// CTAP 2.1 §8 binds what senders produce. Hosts in the field (older platform
    /// stacks, hand-rolled test clients) do send non-shortest heads and unsorted keys;
    /// refusing them would break those hosts without making anything safer, because
    /// the value is unambiguous and duplicate keys are still refused.
    @Test(
        "Well-formed non-canonical input decodes to its value and re-encodes canonically",
        arguments: try nonCanonical())
    func acceptsNonCanonical(_ vector: DecodingVector) throws {
        let bytes = try vector.bytes
        let expected = try #require(vector.value).cbor()
        let canonical = try #require(vector.canonicalHex)
        #expect(canonical != vector.hex)
        let decoded = try CBORDecoder.decode(bytes)
        #expect(decoded == expected)
        #expect(Hex.string(decoded.encoded) == canonical)
    }
}
