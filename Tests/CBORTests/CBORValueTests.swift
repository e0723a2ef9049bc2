import CBOR
import Testing

/// The value type: integer conversions at their extremes, and equality as CBOR defines it.
@Suite("CBORValue")
struct CBORValueTests {
    @Test("Signed integers pick the major type from the sign, without overflow at the extremes")
    func signedInit() {
        #expect(CBORValue(0) == .unsigned(0))
        #expect(CBORValue(-1) == .negative(0))
        #expect(CBORValue(Int64.min) == .negative(UInt64(Int64.max)))
        #expect(CBORValue(Int8.min) == .negative(127))
        #expect(CBORValue(Int64.max) == .unsigned(UInt64(Int64.max)))
        #expect(CBORValue(UInt64.max) == .unsigned(.max))
        #expect(CBORValue(Int64.min).encoded == [0x3B, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF])
    }

    @Test("intValue round-trips Int's whole range and refuses what does not fit")
    func intValue() {
        for n in [Int.min, Int.min + 1, -25, -24, -1, 0, 23, 24, Int.max] {
            #expect(CBORValue(n).intValue == n)
        }
        #expect(CBORValue.unsigned(UInt64(Int.max) + 1).intValue == nil)
        #expect(CBORValue.negative(UInt64(Int.max) + 1).intValue == nil)
        #expect(CBORValue.textString("1").intValue == nil)
    }

    /// RFC 8949 §2 compares text strings as their UTF-8 bytes; Swift's String `==`
    /// uses Unicode canonical equivalence, under which "é" (U+00E9) equals "e" + U+0301.
    @Test("Text strings are equal only when their UTF-8 bytes are")
    func textEqualityIsBytewise() throws {
        let precomposed = CBORValue.textString("\u{E9}")
        let decomposed = CBORValue.textString("e\u{301}")
        #expect(precomposed != decomposed)
        #expect(Set([precomposed, decomposed]).count == 2)
        #expect(precomposed == .textString(String(decoding: [0xC3, 0xA9], as: UTF8.self)))
    }

    @Test("A map keyed by both spellings of é keeps both entries and decodes, not a duplicate key")
    func canonicallyEquivalentKeysAreDistinct() throws {
        // {"é": 1, "é": 2}: keys 62 C3 A9 and 63 65 CC 81.
        let bytes: [UInt8] = [0xA2, 0x62, 0xC3, 0xA9, 0x01, 0x63, 0x65, 0xCC, 0x81, 0x02]
        let decoded = try CBORDecoder.decode(bytes)
        #expect(decoded.mapValue?.count == 2)
        #expect(decoded.mapValue?[.textString("e\u{301}")] == 2)
        #expect(decoded.encoded == bytes)
    }

    @Test("Accessors return the payload only for their own case")
    func accessors() {
        #expect(CBORValue.byteString([1]).bytesValue == [1])
        #expect(CBORValue.textString("x").textValue == "x")
        #expect(CBORValue.boolean(true).boolValue == true)
        #expect(CBORValue.null.boolValue == nil)
        #expect(CBORValue.unsigned(5).unsignedValue == 5)
        #expect(CBORValue.negative(5).unsignedValue == nil)
        #expect(CBORValue.array([1]).arrayValue == [1])
        #expect(CBORValue.map([1: 2]).mapValue == [1: 2])
        #expect(CBORValue.undefined.majorType == 7)
        #expect(CBORValue.negative(0).majorType == 1)
    }
}
