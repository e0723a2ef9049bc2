import Foundation

/// Fixtures/pin/vectors.json, written by Fixtures/pin/generate.py (python `cryptography`).
struct PINVectors: Decodable {
    struct ProtocolOne: Decodable {
        let sharedSecret, newPinEnc, pinHashEnc, pinUvAuthTokenEnc, authenticate, authenticateWithToken: PINFixtureHex
    }

    struct ProtocolTwo: Decodable {
        let hmacKey, aesKey, sharedSecret, iv, newPinEnc, pinHashEnc, pinUvAuthTokenEnc, authenticate,
            authenticateWithToken: PINFixtureHex
    }

    let authenticatorPrivateKey, authenticatorPublicKeyX, authenticatorPublicKeyY: PINFixtureHex
    let platformPrivateKey, platformPublicKeyX, platformPublicKeyY: PINFixtureHex
    let z, paddedNewPin, pinHash, message, pinUvAuthToken: PINFixtureHex
    let protocolOne: ProtocolOne
    let protocolTwo: ProtocolTwo

    static func load(filePath: String = #filePath) throws -> PINVectors {
        let root = URL(fileURLWithPath: filePath)
            .deletingLastPathComponent()  // PIN
            .deletingLastPathComponent()  // CTAPTests
            .deletingLastPathComponent()  // Tests
            .deletingLastPathComponent()
        let data = try Data(contentsOf: root.appendingPathComponent("Fixtures/pin/vectors.json"))
        return try JSONDecoder().decode(PINVectors.self, from: data)
    }
}

/// A lowercase hex string from the fixture, as bytes.
struct PINFixtureHex: Decodable, Equatable {
    let bytes: [UInt8]

    init(_ string: String) throws {
        let digits = Array(string.utf8)
        guard digits.count % 2 == 0 else {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "odd hex length"))
        }
        var out: [UInt8] = []
        for i in stride(from: 0, to: digits.count, by: 2) {
            guard let byte = UInt8(String(decoding: digits[i..<i + 2], as: UTF8.self), radix: 16) else {
                throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "bad hex digit"))
            }
            out.append(byte)
        }
        bytes = out
    }

    init(from decoder: any Decoder) throws {
        try self.init(try decoder.singleValueContainer().decode(String.self))
    }
}
