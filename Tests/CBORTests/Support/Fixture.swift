import CBOR
import Foundation
import Testing

/// The test vectors kept as data in `Fixtures/cbor/` at the package root.
enum Fixture {
    static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // Support
        .deletingLastPathComponent()  // CBORTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()  // package root
        .appendingPathComponent("Fixtures/cbor")

    static func load<T: Decodable>(_ name: String, as type: T.Type = T.self) throws -> T {
        let data = try Data(contentsOf: directory.appendingPathComponent(name))
        return try JSONDecoder().decode(T.self, from: data)
    }
}

/// One encoded input with what the decoder must make of it.
struct DecodingVector: Decodable, Sendable, CustomTestStringConvertible {
    /// RFC 8949 diagnostic notation, or why the vector exists.
    let label: String
    let hex: String
    let value: FixtureValue?
    let error: String?
    let canonicalHex: String?

    enum CodingKeys: String, CodingKey {
        case diagnostic, why, hex, value, error
        case canonicalHex = "canonical_hex"
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        label =
            try container.decodeIfPresent(String.self, forKey: .diagnostic)
            ?? container.decode(String.self, forKey: .why)
        hex = try container.decode(String.self, forKey: .hex)
        value = try container.decodeIfPresent(FixtureValue.self, forKey: .value)
        error = try container.decodeIfPresent(String.self, forKey: .error)
        canonicalHex = try container.decodeIfPresent(String.self, forKey: .canonicalHex)
    }

    var bytes: [UInt8] { get throws { try Hex.bytes(hex) } }

    /// The `CBORError` case the fixture names, by its Swift spelling.
    var expectedError: CBORError? {
        switch error {
        case "truncated": .truncated
        case "trailingBytes": .trailingBytes
        case "indefiniteLength": .indefiniteLength
        case "reservedAdditionalInfo": .reservedAdditionalInfo
        case "invalidUTF8": .invalidUTF8
        case "duplicateMapKey": .duplicateMapKey
        case "nestingTooDeep": .nestingTooDeep
        case "lengthExceedsInput": .lengthExceedsInput
        case "unsupportedType": .unsupportedType
        default: nil
        }
    }

    var testDescription: String { "\(label) [\(hex)]" }
}

struct VectorFile: Decodable {
    let vectors: [DecodingVector]
}
