import CBOR
import Testing

/// CTAP 2.1 §8: shortest integer and length encodings, definite lengths only.
@Suite("Encoder shortest form")
struct EncoderTests {
    /// Each argument with the head bytes after the initial byte's major-type bits.
    static let heads: [(argument: UInt64, info: UInt8, following: [UInt8])] = [
        (0, 0, []), (23, 23, []),
        (24, 24, [24]), (255, 24, [0xFF]),
        (256, 25, [0x01, 0x00]), (65535, 25, [0xFF, 0xFF]),
        (65536, 26, [0x00, 0x01, 0x00, 0x00]), (0xFFFF_FFFF, 26, [0xFF, 0xFF, 0xFF, 0xFF]),
        (0x1_0000_0000, 27, [0, 0, 0, 1, 0, 0, 0, 0]), (.max, 27, [UInt8](repeating: 0xFF, count: 8))
    ]

    @Test("Integers use the shortest head at every width boundary", arguments: 0..<heads.count)
    func integerHeads(_ index: Int) throws {
        let (argument, info, following) = Self.heads[index]
        #expect(CBORValue.unsigned(argument).encoded == [info] + following)
        #expect(CBORValue.negative(argument).encoded == [0x20 | info] + following)
        #expect(try CBORDecoder.decode([info] + following) == .unsigned(argument))
    }

    @Test(
        "String and array lengths use the shortest head",
        arguments: [
            (0, 0, []), (23, 23, []), (24, 24, [24]), (255, 24, [0xFF]),
            (256, 25, [0x01, 0x00]), (65535, 25, [0xFF, 0xFF]), (65536, 26, [0x00, 0x01, 0x00, 0x00])
        ] as [(Int, UInt8, [UInt8])])
    func lengthHeads(_ count: Int, _ info: UInt8, _ following: [UInt8]) throws {
        let bytes = CBORValue.byteString([UInt8](repeating: 7, count: count)).encoded
        #expect(Array(bytes.prefix(1 + following.count)) == [0x40 | info] + following)
        #expect(bytes.count == 1 + following.count + count)

        let text = CBORValue.textString(
            String(repeating: "\u{E9}", count: count / 2) + (count.isMultiple(of: 2) ? "" : "a")
        ).encoded
        #expect(Array(text.prefix(1 + following.count)) == [0x60 | info] + following)

        let array = CBORValue.array([CBORValue](repeating: .null, count: count)).encoded
        #expect(Array(array.prefix(1 + following.count)) == [0x80 | info] + following)
        #expect(try CBORDecoder.decode(array) == .array([CBORValue](repeating: .null, count: count)))
    }

    @Test("A map of 24 entries has a one-byte count")
    func mapCountHead() {
        let map = CBORValue.map(
            Dictionary(uniqueKeysWithValues: (0..<24).map { (CBORValue.unsigned(UInt64($0)), CBORValue.null) }))
        let bytes = map.encoded
        #expect(Array(bytes.prefix(2)) == [0xB8, 24])
        #expect(bytes.count == 2 + 24 * 2)  // keys 0...23 and null are one byte each
    }

    @Test("Simple values encode as single bytes")
    func simpleValues() {
        #expect(CBORValue.boolean(false).encoded == [0xF4])
        #expect(CBORValue.boolean(true).encoded == [0xF5])
        #expect(CBORValue.null.encoded == [0xF6])
        #expect(CBORValue.undefined.encoded == [0xF7])
    }

    @Test("CBOREncoder.encode and .encoded agree")
    func entryPointsAgree() {
        let value: CBORValue = ["rp": ["id": "example.com"], "n": -300, "b": .byteString([1, 2])]
        #expect(CBOREncoder.encode(value) == value.encoded)
    }

    /// `CBORWriter` writes each item as `CBOREncoder` encodes the same `CBORValue`.
    @Test func writerWritesWhatTheEncoderEncodes() {
        for (argument, _, _) in Self.heads {
            var writer = CBORWriter()
            writer.unsigned(argument)
            #expect(writer.bytes == CBORValue.unsigned(argument).encoded)
        }
        for number in [0, 1, 23, 24, -1, -24, -25, -256, -257, Int.max, Int.min, Int(Int32.min), 1 << 40] {
            var writer = CBORWriter()
            writer.integer(number)
            #expect(writer.bytes == CBORValue(number).encoded, "\(number)")
        }
        for length in [0, 1, 23, 24, 255, 256, 65_536] {
            var writer = CBORWriter(prefix: [0xAA])
            writer.byteString([UInt8](repeating: 9, count: length))
            writer.textString(String(repeating: "ü", count: length))
            writer.mapHeader(count: length)
            writer.boolean(length.isMultiple(of: 2))
            writer.value(["k": .array([1, -1, .null])])
            #expect(
                writer.bytes == [0xAA] + CBORValue.byteString([UInt8](repeating: 9, count: length)).encoded
                    + CBORValue.textString(String(repeating: "ü", count: length)).encoded
                    + Self.mapHead(length) + CBORValue.boolean(length.isMultiple(of: 2)).encoded
                    + CBORValue.map(["k": .array([1, -1, .null])]).encoded)
        }
    }

    /// A map head of `count` entries, from an array head of the same count (major 4 → 5).
    static func mapHead(_ count: Int) -> [UInt8] {
        var head = CBORValue.array(Array(repeating: .null, count: count)).encoded.dropLast(count)
        head[head.startIndex] += 0x20
        return Array(head)
    }
}
