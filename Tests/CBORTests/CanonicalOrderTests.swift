import CBOR
import Testing

/// CTAP 2.1 §8 ("CTAP2 canonical CBOR encoding form"): map keys sort by major type,
/// then encoded length, then bytewise.
@Suite("Canonical map-key order")
struct CanonicalOrderTests {
    struct CrossCheckCase: Decodable, Sendable, CustomTestStringConvertible {
        let name: String
        let value: FixtureValue
        let pythonHex: String
        /// Present only where the spec's rule and python-fido2's differ (array keys).
        let specHex: String?

        enum CodingKeys: String, CodingKey {
            case name, value
            case pythonHex = "python_hex"
            case specHex = "spec_hex"
        }

        var testDescription: String { name }
    }

    struct CrossCheckFile: Decodable {
        let generator: String
        let cases: [CrossCheckCase]
    }

    static func crossCheck() throws -> [CrossCheckCase] {
        try Fixture.load("python-fido2-map-order.json", as: CrossCheckFile.self).cases
    }

    @Test(
        "Maps with mixed key types encode byte-for-byte as python-fido2's encoder does",
        arguments: try crossCheck().filter { $0.specHex == nil })
    func matchesPythonFido2(_ check: CrossCheckCase) throws {
        let value = try check.value.cbor()
        #expect(Hex.string(value.encoded) == check.pythonHex)
        // What python-fido2 produces also decodes back to the same value here.
        #expect(try CBORDecoder.decode(Hex.bytes(check.pythonHex), maxDepth: 8) == value)
    }

    /// python-fido2 sorts by (first byte, length, bytes); the spec by (major type,
    /// length, bytes). They differ only for array and map keys, which CTAP never sends.
    @Test(
        "Where python-fido2 departs from the spec (array keys), the encoder follows the spec",
        arguments: try crossCheck().filter { $0.specHex != nil })
    func followsSpecOverPython(_ check: CrossCheckCase) throws {
        let specHex = try #require(check.specHex)
        #expect(specHex != check.pythonHex)
        #expect(Hex.string(try check.value.cbor().encoded) == specHex)
    }

    @Test("The cross-check fixture covers the cases it is meant to")
    func crossCheckCoverage() throws {
        let cases = try Self.crossCheck()
        #expect(cases.count == 13)
        #expect(cases.filter { $0.specHex != nil }.count == 1)
    }

    @Test("100 sorts before -1: major type 0 before 1, whatever the lengths")
    func unsignedBeforeNegative() {
        let map: CBORValue = [-1: "neg", 100: "pos"]
        #expect(map.encoded == [0xA2, 0x18, 0x64, 0x63] + Array("pos".utf8) + [0x20, 0x63] + Array("neg".utf8))
    }

    @Test("Within a major type, shorter encodings sort first, then bytewise")
    func lengthThenBytes() {
        let text: CBORValue = ["bb": 0, "c": 1, "ab": 2, "": 3]
        #expect(text.encoded == [0xA4, 0x60, 0x03, 0x61, 0x63, 0x01, 0x62, 0x61, 0x62, 0x02, 0x62, 0x62, 0x62, 0x00])
        let ints: CBORValue = [256: 0, 24: 1, 23: 2, -24: 3, -25: 4]
        #expect(
            ints.encoded == [0xA5, 0x17, 0x02, 0x18, 0x18, 0x01, 0x19, 0x01, 0x00, 0x00, 0x37, 0x03, 0x38, 0x18, 0x04])
    }

    @Test("Key types sort in major-type order: unsigned, negative, bytes, text, simple")
    func majorTypeOrder() {
        let map: CBORValue = .map([
            .boolean(false): 0, "a": 0, .byteString([0x61]): 0, -1: 0, 1: 0
        ])
        #expect(map.encoded == [0xA5, 0x01, 0x00, 0x20, 0x00, 0x41, 0x61, 0x00, 0x61, 0x61, 0x00, 0xF4, 0x00])
    }

    @Test("A COSE_Key encodes as CTAP and WebAuthn authenticators send it: 1, 3, -1, -2, -3")
    func coseKeyOrder() {
        let x = [UInt8](repeating: 0xAA, count: 32)
        let y = [UInt8](repeating: 0xBB, count: 32)
        let key: CBORValue = [-3: .byteString(y), -2: .byteString(x), -1: 1, 3: -7, 1: 2]
        let expected: [UInt8] =
            [0xA5, 0x01, 0x02, 0x03, 0x26, 0x20, 0x01, 0x21, 0x58, 0x20] + x + [0x22, 0x58, 0x20] + y
        #expect(key.encoded == expected)
    }

    @Test("The encoding does not depend on the dictionary's iteration order", arguments: 0..<20)
    func independentOfInsertionOrder(_ seed: UInt64) {
        var random = RandomCBOR(seed: 0xC0FFEE &+ seed)
        let keys = (0..<24).map { _ in random.scalarKey() }
        var forward: [CBORValue: CBORValue] = [:]
        for (index, key) in keys.enumerated() { forward[key] = .unsigned(UInt64(index)) }
        // Same contents built in reverse into a much larger table: a different iteration order.
        var backward: [CBORValue: CBORValue] = [:]
        backward.reserveCapacity(4096)
        for key in keys.reversed() where backward[key] == nil { backward[key] = forward[key] }
        #expect(forward == backward)
        #expect(CBORValue.map(forward).encoded == CBORValue.map(backward).encoded)
    }

    /// CTAP 2.1 §8 notes its rule equals a plain bytewise comparison of the keys'
    /// canonical encodings for integers, strings and simple values. That second
    /// formulation is an independent oracle for random scalar-keyed maps.
    @Test("For scalar keys the order equals bytewise order of the key encodings", arguments: 0..<50)
    func bytewiseOracle(_ seed: UInt64) {
        var random = RandomCBOR(seed: 0x5EED &+ seed)
        var map: [CBORValue: CBORValue] = [:]
        for _ in 0..<Int.random(in: 2...30, using: &random.rng) {
            map[random.scalarKey()] = random.scalarKey()
        }
        let entries = map.map { (key: $0.key.encoded, value: $0.value.encoded) }
            .sorted { $0.key.lexicographicallyPrecedes($1.key) }
        let expected =
            CBORValue.unsigned(UInt64(map.count)).encoded.replacingFirstMajorType(with: 5)
            + entries.flatMap { $0.key + $0.value }
        #expect(CBORValue.map(map).encoded == expected)
    }
}

extension Array where Element == UInt8 {
    /// A major type 0 head re-tagged as another major type.
    fileprivate func replacingFirstMajorType(with major: UInt8) -> [UInt8] {
        var copy = self
        copy[0] = major << 5 | (copy[0] & 0x1F)
        return copy
    }
}
