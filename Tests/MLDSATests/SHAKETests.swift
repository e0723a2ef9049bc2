import MLDSA
import Testing

/// SHAKE128/256 against hashlib, across the rate boundaries (168 and 136 bytes) in input and output.
@Suite struct SHAKETests {
    @Test func matchesHashlib() throws {
        let vectors = try MLDSAVectors.load()
        #expect(vectors.shake.count == 9)
        for answer in vectors.shake {
            #expect(
                SHAKE.digest(.shake128, answer.input.bytes, count: 300) == answer.shake128.bytes,
                "SHAKE128 of \(answer.input.bytes.count) bytes")
            #expect(
                SHAKE.digest(.shake256, answer.input.bytes, count: 300) == answer.shake256.bytes,
                "SHAKE256 of \(answer.input.bytes.count) bytes")
        }
    }

    @Test func absorbingAndSqueezingInPiecesIsTheSameStream() throws {
        let answer = try #require(try MLDSAVectors.load().shake.last)
        let input = answer.input.bytes
        var xof = SHAKE(.shake256)
        for piece in stride(from: 0, to: input.count, by: 37) {
            xof.absorb(input[piece..<min(piece + 37, input.count)])
        }
        let output = xof.squeeze(1) + xof.squeeze(135) + xof.squeeze(164)
        #expect(output == answer.shake256.bytes)
    }
}
