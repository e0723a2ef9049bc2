import Testing
import WebAuthn

@Suite struct Base64URLTests {
    // RFC 4648 §10 vectors, unpadded.
    static let vectors: [(String, String)] = [
        ("", ""), ("f", "Zg"), ("fo", "Zm8"), ("foo", "Zm9v"), ("foob", "Zm9vYg"), ("fooba", "Zm9vYmE"),
        ("foobar", "Zm9vYmFy")
    ]

    @Test func encodesRFC4648VectorsWithoutPadding() {
        for (plain, encoded) in Self.vectors {
            #expect(Base64URL.encode(Array(plain.utf8)) == encoded)
        }
    }

    @Test func decodesRFC4648VectorsWithAndWithoutPadding() throws {
        for (plain, encoded) in Self.vectors {
            #expect(try Base64URL.decode(encoded) == Array(plain.utf8))
            let padded = encoded + String(repeating: "=", count: (4 - encoded.count % 4) % 4)
            #expect(try Base64URL.decode(padded) == Array(plain.utf8))
        }
    }

    @Test func usesTheURLSafeAlphabet() throws {
        #expect(Base64URL.encode([0xFB, 0xFF, 0xBF]) == "-_-_")
        #expect(try Base64URL.decode("-_-_") == [0xFB, 0xFF, 0xBF])
    }

    @Test func roundTripsEveryLength() throws {
        var generator = SystemRandomNumberGenerator()
        for length in 0...70 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            #expect(try Base64URL.decode(Base64URL.encode(bytes)) == bytes)
        }
    }

    @Test func rejectsStandardAlphabetAndJunk() {
        #expect(throws: Base64URL.DecodingError.invalidCharacter) { try Base64URL.decode("+/+/") }
        #expect(throws: Base64URL.DecodingError.invalidCharacter) { try Base64URL.decode("Zm9v Yg") }
        #expect(throws: Base64URL.DecodingError.invalidCharacter) { try Base64URL.decode("Zg=") }
    }

    @Test func rejectsImpossibleLengthsAndBadPadding() {
        #expect(throws: Base64URL.DecodingError.invalidLength) { try Base64URL.decode("Zm9vY") }
        #expect(throws: Base64URL.DecodingError.invalidLength) { try Base64URL.decode("Z===") }
        #expect(throws: Base64URL.DecodingError.invalidLength) { try Base64URL.decode("Zg=A") }
    }
}
