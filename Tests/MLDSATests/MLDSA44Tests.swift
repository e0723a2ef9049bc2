import MLDSA
import Testing

/// ML-DSA-44 against python `cryptography` (Fixtures/mldsa/generate.py): the same public key
/// from the same seed ξ, its signatures accepted here, and ours accepted by our verifier.
@Suite struct MLDSA44Tests {
    @Test func publicKeyFromSeedMatchesTheOracle() throws {
        let vectors = try MLDSAVectors.load().mldsa44
        #expect(vectors.count == 4)
        for vector in vectors {
            let key = try MLDSAPrivateKey(seed: vector.seed.bytes, parameters: .mldsa44)
            #expect(key.publicKey.rawRepresentation == vector.publicKey.bytes)
            #expect(key.seed == vector.seed.bytes)
        }
    }

    @Test func oracleSignaturesVerify() throws {
        for vector in try MLDSAVectors.load().mldsa44 {
            let publicKey = try MLDSAPublicKey(rawRepresentation: vector.publicKey.bytes, parameters: .mldsa44)
            #expect(vector.signature.bytes.count == MLDSAParameters.mldsa44.signatureLength)
            #expect(publicKey.isValidSignature(vector.signature.bytes, for: vector.message.bytes))
            #expect(!publicKey.isValidSignature(vector.signature.bytes, for: vector.message.bytes + [0]))
            var flipped = vector.signature.bytes
            flipped[100] ^= 0x01
            #expect(!publicKey.isValidSignature(flipped, for: vector.message.bytes))
        }
    }

    /// The context string is bound into M′ = 0 ‖ |ctx| ‖ ctx ‖ M (FIPS 204 Algorithms 2 and 3):
    /// the oracle's signatures verify under their context only, and ours under ours only.
    @Test func contextSignaturesVerifyOnlyUnderTheirContext() throws {
        let vectors = try MLDSAVectors.load().mldsa44Context
        #expect(vectors.map(\.context.bytes.count) == [1, 64, 255])
        for vector in vectors {
            let key = try MLDSAPrivateKey(seed: vector.seed.bytes)
            #expect(key.publicKey.rawRepresentation == vector.publicKey.bytes)
            let message = vector.message.bytes
            let context = vector.context.bytes
            #expect(key.publicKey.isValidSignature(vector.signature.bytes, for: message, context: context))
            #expect(!key.publicKey.isValidSignature(vector.signature.bytes, for: message))
            #expect(
                !key.publicKey.isValidSignature(
                    vector.signature.bytes, for: message, context: context.dropLast() + [context.last! ^ 1]))
            let ours = try key.signature(for: message, context: context)
            #expect(key.publicKey.isValidSignature(ours, for: message, context: context))
            #expect(!key.publicKey.isValidSignature(ours, for: message, context: Array(context.dropLast())))
        }
    }

    @Test func aContextOver255BytesIsRefused() throws {
        let key = try MLDSAPrivateKey(seed: [UInt8](repeating: 9, count: 32))
        let context = [UInt8](repeating: 1, count: 256)
        #expect(throws: MLDSAError.contextLength) { try key.signature(for: [1], context: context) }
        #expect(throws: MLDSAError.contextLength) {
            try key.signature(for: [1], context: context, randomness: [UInt8](repeating: 0, count: 32))
        }
        let signature = try key.signature(for: [1], context: Array(context.dropLast()))
        #expect(key.publicKey.isValidSignature(signature, for: [1], context: Array(context.dropLast())))
        #expect(!key.publicKey.isValidSignature(signature, for: [1], context: context))
        // An empty context is the default, in signing and verification alike.
        let plain = try key.signature(for: [1], context: [], randomness: [UInt8](repeating: 0, count: 32))
        #expect(try key.signature(for: [1], randomness: [UInt8](repeating: 0, count: 32)) == plain)
        #expect(
            key.publicKey.isValidSignature(plain, for: [1])
                && key.publicKey.isValidSignature(plain, for: [1], context: []))
    }

    @Test func ourSignatureVerifiesAndAFlippedBitDoesNot() throws {
        let vector = try #require(try MLDSAVectors.load().mldsa44.first)
        let key = try MLDSAPrivateKey(seed: vector.seed.bytes)
        let message = Array("authenticatorData || clientDataHash".utf8)
        let signature = key.signature(for: message)
        #expect(signature.count == 2420)
        #expect(key.publicKey.isValidSignature(signature, for: message))
        for index in [0, 40, 2000, 2419] {
            var flipped = signature
            flipped[index] ^= 0x10
            #expect(!key.publicKey.isValidSignature(flipped, for: message), "bit flipped in byte \(index)")
        }
        let other = try MLDSAPrivateKey(seed: vector.seed.bytes.reversed())
        #expect(!other.publicKey.isValidSignature(signature, for: message))
    }

    /// rnd is the only randomness: the same rnd gives the same signature, another rnd another one (FIPS 204 Algorithm 2).
    @Test func signingIsHedgedByRnd() throws {
        let key = try MLDSAPrivateKey(seed: [UInt8](repeating: 7, count: 32))
        let message: [UInt8] = [1, 2, 3]
        let zero = [UInt8](repeating: 0, count: 32)
        let deterministic = try key.signature(for: message, randomness: zero)
        #expect(try key.signature(for: message, randomness: zero) == deterministic)
        #expect(try key.signature(for: message, randomness: [UInt8](repeating: 1, count: 32)) != deterministic)
        #expect(key.publicKey.isValidSignature(deterministic, for: message))
        #expect(throws: MLDSAError.randomnessLength) { try key.signature(for: message, randomness: [0]) }
    }

    @Test func malformedInputIsRefusedWithoutTrapping() throws {
        let vector = try #require(try MLDSAVectors.load().mldsa44.first)
        #expect(throws: MLDSAError.seedLength) { try MLDSAPrivateKey(seed: [UInt8](repeating: 0, count: 31)) }
        #expect(throws: MLDSAError.publicKeyLength) {
            try MLDSAPublicKey(rawRepresentation: vector.publicKey.bytes.dropLast())
        }
        #expect(throws: MLDSAError.publicKeyLength) {
            try MLDSAPublicKey(rawRepresentation: vector.publicKey.bytes, parameters: .mldsa65)
        }
        let publicKey = try MLDSAPublicKey(rawRepresentation: vector.publicKey.bytes)
        let signature = vector.signature.bytes
        #expect(!publicKey.isValidSignature([], for: vector.message.bytes))
        #expect(!publicKey.isValidSignature(signature.dropLast(), for: vector.message.bytes))
        #expect(!publicKey.isValidSignature(signature + [0], for: vector.message.bytes))
        // The hint's counts (the last k bytes) past ω, or decreasing, make sigDecode fail (Algorithm 21).
        var counts = signature
        counts[counts.count - 1] = 81
        #expect(!publicKey.isValidSignature(counts, for: vector.message.bytes))
        counts[counts.count - 1] = 0
        counts[counts.count - 2] = 1
        #expect(!publicKey.isValidSignature(counts, for: vector.message.bytes))
        #expect(
            !publicKey.isValidSignature([UInt8](repeating: 0xFF, count: signature.count), for: vector.message.bytes))
    }

    @Test func sizesAreFIPS204Table2() {
        #expect(MLDSAParameters.mldsa44.publicKeyLength == 1312)
        #expect(MLDSAParameters.mldsa44.signatureLength == 2420)
        #expect(MLDSAParameters.mldsa65.publicKeyLength == 1952)
        #expect(MLDSAParameters.mldsa65.signatureLength == 3309)
        #expect(MLDSAParameters.mldsa87.publicKeyLength == 2592)
        #expect(MLDSAParameters.mldsa87.signatureLength == 4627)
    }
}
