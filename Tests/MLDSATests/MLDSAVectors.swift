import Foundation

/// Fixtures/mldsa/vectors.json, written by Fixtures/mldsa/generate.py (python `cryptography` and hashlib).
struct MLDSAVectors: Decodable {
    struct Key: Decodable {
        let seed, publicKey, message, signature: Hex
    }

    struct SHAKEAnswer: Decodable {
        let input, shake128, shake256: Hex
    }

    let mldsa44: [Key]
    let shake: [SHAKEAnswer]

    static func load(filePath: String = #filePath) throws -> MLDSAVectors {
        let root = URL(fileURLWithPath: filePath)
            .deletingLastPathComponent()  // MLDSATests
            .deletingLastPathComponent()  // Tests
            .deletingLastPathComponent()
        let data = try Data(contentsOf: root.appendingPathComponent("Fixtures/mldsa/vectors.json"))
        return try JSONDecoder().decode(MLDSAVectors.self, from: data)
    }
}

/// A lowercase hex string from the fixture, as bytes.
struct Hex: Decodable {
    let bytes: [UInt8]

    init(from decoder: Decoder) throws {
        let digits = Array(try decoder.singleValueContainer().decode(String.self).utf8)
        guard digits.count % 2 == 0 else { throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "odd hex length")) }
        bytes = try stride(from: 0, to: digits.count, by: 2).map { i in
            guard let byte = UInt8(String(decoding: digits[i..<i + 2], as: UTF8.self), radix: 16) else {
                throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "bad hex digit"))
            }
            return byte
        }
    }
}
