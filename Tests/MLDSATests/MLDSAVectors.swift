import Foundation

/// Fixtures/mldsa/vectors.json, written by Fixtures/mldsa/generate.py (python `cryptography` and hashlib).
struct MLDSAVectors: Decodable {
    struct Key: Decodable {
        let seed, publicKey, message, signature: Hex
    }

    /// A pure ML-DSA signature over M with a context string ctx (FIPS 204 Algorithm 2).
    struct ContextSignature: Decodable {
        let seed, publicKey, message, context, signature: Hex
    }

    struct SHAKEAnswer: Decodable {
        let input, shake128, shake256: Hex
    }

    let mldsa44: [Key]
    let mldsa44Context: [ContextSignature]
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

/// A hex string (a fixture's or a test's), as bytes.
struct Hex: Decodable {
    let bytes: [UInt8]

    /// nil for an odd length or a character that is not a hex digit.
    init?(_ text: String) {
        let digits = Array(text.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        for i in stride(from: 0, to: digits.count, by: 2) {
            guard let byte = UInt8(String(decoding: digits[i..<i + 2], as: UTF8.self), radix: 16) else { return nil }
            bytes.append(byte)
        }
        self.bytes = bytes
    }

    init(from decoder: Decoder) throws {
        guard let hex = Hex(try decoder.singleValueContainer().decode(String.self)) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not hex"))
        }
        self = hex
    }
}
