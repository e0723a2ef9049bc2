import CBOR
import Testing

/// The decoder's limits at their exact edges: nesting depth, length and count
/// claims, and how much of the input `decodePrefix` consumed.
@Suite("Decoder limits")
struct DecoderLimitTests {
    /// `levels` containers nested inside each other, alternating array and map,
    /// innermost holding a single 0.
    static func nested(_ levels: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        for level in 0..<levels {
            bytes += level.isMultiple(of: 2) ? [0x81] : [0xA1, 0x01]
        }
        return bytes + [0x00]
    }

    @Test("CTAP 2.1 §8: four levels of nesting decode, five are refused")
    func depthLimitIsFour() throws {
        #expect(CBORDecoder.ctapNestingLimit == 4)
        let four = try CBORDecoder.decode(Self.nested(4))
        #expect(four == [[1: [[1: 0]]]])
        #expect(throws: CBORError.nestingTooDeep) { try CBORDecoder.decode(Self.nested(5)) }
        #expect(throws: CBORError.nestingTooDeep) { try CBORDecoder.decodePrefix(Self.nested(5)) }
    }

    @Test("Scalars at the fourth level are not a fifth level; an empty container there is")
    func depthCountsContainersOnly() throws {
        // [[[["deep", h'00', true]]]]: four arrays, scalars inside the fourth.
        let four: [UInt8] = [0x81, 0x81, 0x81, 0x83, 0x64] + Array("deep".utf8) + [0x41, 0x00, 0xF5]
        #expect(try CBORDecoder.decode(four) == [[[["deep", .byteString([0]), true]]]])
        #expect(throws: CBORError.nestingTooDeep) { try CBORDecoder.decode([0x81, 0x81, 0x81, 0x81, 0x80]) }
    }

    @Test("A custom limit is honoured exactly", arguments: [0, 1, 2, 7, 16])
    func customDepth(_ limit: Int) throws {
        if limit > 0 {
            _ = try CBORDecoder.decode(Self.nested(limit), maxDepth: limit)
        } else {
            // With no container allowed, scalars still decode.
            #expect(try CBORDecoder.decode([0x18, 0x64], maxDepth: 0) == 100)
        }
        #expect(throws: CBORError.nestingTooDeep) { try CBORDecoder.decode(Self.nested(limit + 1), maxDepth: limit) }
    }

    @Test(
        "Length and count claims near UInt64.max are refused before any allocation",
        arguments: [UInt64.max, UInt64.max - 1, UInt64(Int.max), UInt64(Int.max) + 1, 1 << 32, 0xFFFF_FFFF] as [UInt64])
    func hugeClaims(_ claim: UInt64) throws {
        for major: UInt8 in [2, 3, 4, 5] {
            var bytes: [UInt8] = [major << 5 | 27]
            for shift in stride(from: 56, through: 0, by: -8) {
                bytes.append(UInt8(truncatingIfNeeded: claim >> UInt64(shift)))
            }
            bytes += [UInt8](repeating: 0, count: 16)
            #expect(throws: CBORError.lengthExceedsInput) { try CBORDecoder.decode(bytes) }
        }
    }

    @Test("A string length equal to the bytes left is accepted; one more is refused")
    func stringLengthEdge() throws {
        let content = [UInt8](repeating: 0x61, count: 300)
        let exact: [UInt8] = [0x79, 0x01, 0x2C] + content
        #expect(try CBORDecoder.decode(exact) == .textString(String(repeating: "a", count: 300)))
        let over: [UInt8] = [0x59, 0x01, 0x2D] + content
        #expect(throws: CBORError.lengthExceedsInput) { try CBORDecoder.decode(over) }
    }

    @Test(
        "A map whose entry count needs more bytes than remain is refused",
        arguments: [
            ([0xA3, 0x01, 0x02, 0x03, 0x04, 0x05] as [UInt8]),  // 3 entries need >= 6 bytes, 5 left
            [0xB9, 0x01, 0x00, 0x01, 0x02],  // 256 entries, 2 bytes left
            [0xBA, 0x7F, 0xFF, 0xFF, 0xFF, 0x01, 0x02],
            [0xBB, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01, 0x02]
        ])
    func mapCountClaims(_ bytes: [UInt8]) {
        #expect(throws: CBORError.lengthExceedsInput) { try CBORDecoder.decode(bytes) }
    }

    @Test("A map whose count exactly fits the bytes left decodes")
    func mapCountExactFit() throws {
        #expect(try CBORDecoder.decode([0xA2, 0x01, 0x02, 0x03, 0x04]) == [1: 2, 3: 4])
    }

    @Test("decodePrefix returns the item and how many bytes it took, leaving what follows")
    func prefixReportsConsumedLength() throws {
        // authenticatorData-like: a COSE key then extension bytes (CTAP 2.1 §6.1, WebAuthn §6.1).
        let key: CBORValue = [1: 2, 3: -7, -1: 1, -2: .byteString(Array(repeating: 7, count: 32))]
        let keyBytes = key.encoded
        let extensions: [UInt8] = [0xA1, 0x6B] + Array("credProtect".utf8) + [0x02]
        let (value, length) = try CBORDecoder.decodePrefix(keyBytes + extensions)
        #expect(value == key)
        #expect(length == keyBytes.count)
        #expect(try CBORDecoder.decodePrefix(Array((keyBytes + extensions)[length...])).length == extensions.count)
        // Whole-input decode of the same bytes refuses the trailing extensions.
        #expect(throws: CBORError.trailingBytes) { try CBORDecoder.decode(keyBytes + extensions) }
    }

    @Test("decodePrefix counts non-shortest heads as consumed and still refuses malformed prefixes")
    func prefixEdges() throws {
        let nonShortest = try CBORDecoder.decodePrefix([0x1B, 0, 0, 0, 0, 0, 0, 0, 1, 0xFF])
        #expect(nonShortest.value == .unsigned(1) && nonShortest.length == 9)
        let null = try CBORDecoder.decodePrefix([0xF6])
        #expect(null.value == .null && null.length == 1)
        #expect(throws: CBORError.truncated) { try CBORDecoder.decodePrefix([]) }
        #expect(throws: CBORError.lengthExceedsInput) { try CBORDecoder.decodePrefix([0x43, 0x01, 0x02]) }
        #expect(throws: CBORError.indefiniteLength) { try CBORDecoder.decodePrefix([0x9F, 0xFF, 0x00]) }
    }
}

@Suite struct MapValueEncodingTests {
    @Test func eachValueKeepsItsBytesAsSent() throws {
        // {1: 24 (as 18 18), "a": [1] (as 98 01 01)}: non-shortest forms survive untouched.
        let bytes: [UInt8] = [0xA2, 0x01, 0x18, 0x18, 0x61, 0x61, 0x98, 0x01, 0x01]
        let encodings = try #require(try CBORDecoder.mapValueEncodings(bytes))
        #expect(encodings == [1: [0x18, 0x18], "a": [0x98, 0x01, 0x01]])
    }

    @Test func rejectsWhatTheDecoderRejects() throws {
        #expect(try CBORDecoder.mapValueEncodings([0x82, 0x01, 0x02]) == nil, "not a map")
        #expect(throws: CBORError.duplicateMapKey) { try CBORDecoder.mapValueEncodings([0xA2, 0x01, 0x01, 0x01, 0x02]) }
        #expect(throws: CBORError.trailingBytes) { try CBORDecoder.mapValueEncodings([0xA0, 0x00]) }
        #expect(throws: CBORError.lengthExceedsInput) {
            try CBORDecoder.mapValueEncodings([0xBA, 0xFF, 0xFF, 0xFF, 0xFF])
        }
    }
}
