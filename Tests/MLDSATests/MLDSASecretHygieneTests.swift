import Testing

@testable import MLDSA

/// Signing's rejection checks folded over every coefficient (`Bounds`), against the naive
/// early-exit definitions, and the wipe of secret buffers (issue 33, F6).
@Suite struct MLDSASecretHygieneTests {
    static let q = Field.q

    /// Vectors of 4 polynomials with every coefficient within ±(bound − 1), then, in two rounds
    /// out of three, one coefficient anywhere replaced by an edge value or a uniform one, so that
    /// a single coefficient decides.
    static func vectors(around bound: Int, count: Int) -> [[Polynomial]] {
        var generator = SystemRandomNumberGenerator()
        let edges = [
            0, 1, q - 1, (q - 1) / 2, (q + 1) / 2, bound - 1, bound, bound + 1, q - bound + 1, q - bound, q - bound - 1
        ]
        return (0..<count).map { round in
            var v = (0..<4).map { _ in
                Polynomial(
                    (0..<Field.n).map { _ in (Int.random(in: -(bound - 1)...(bound - 1), using: &generator) + q) % q })
            }
            let position = Int.random(in: 0..<(4 * Field.n), using: &generator)
            switch round % 3 {
            case 1: v[position / Field.n][position % Field.n] = edges.randomElement(using: &generator)!
            case 2: v[position / Field.n][position % Field.n] = Int.random(in: 0..<q, using: &generator)
            default: break
            }
            return v
        }
    }

    @Test(arguments: [
        MLDSAParameters.mldsa44.gamma1 - MLDSAParameters.mldsa44.beta,
        MLDSAParameters.mldsa44.gamma2 - MLDSAParameters.mldsa44.beta,
        MLDSAParameters.mldsa44.gamma2
    ])
    func allBelowIsTheInfinityNormCheck(bound: Int) {
        var verdicts = [Bool: Int]()
        for v in Self.vectors(around: bound, count: 90) {
            let naive = v.allSatisfy { $0.coefficients.allSatisfy { abs(Field.centered($0, Self.q)) < bound } }
            #expect(Bounds.allBelow(v, bound) == naive)
            verdicts[naive, default: 0] += 1
        }
        // Both outcomes occur, so the comparison is not vacuous.
        #expect(verdicts[true, default: 0] > 0 && verdicts[false, default: 0] > 0)
        // One coefficient at the bound, anywhere, fails the check; one just below does not.
        for (position, value) in [(0, bound), (1023, Self.q - bound), (517, bound - 1), (3, Self.q - bound + 1)] {
            var v = [Polynomial](repeating: .zero, count: 4)
            v[position / Field.n][position % Field.n] = value
            #expect(Bounds.allBelow(v, bound) == (value == bound - 1 || value == Self.q - bound + 1))
        }
    }

    @Test func atMostCountsTheHintsOnes() {
        let omega = MLDSAParameters.mldsa44.omega
        for ones in [0, 1, omega - 1, omega, omega + 1, 4 * Field.n] {
            var hint = [[Bool]](repeating: [Bool](repeating: false, count: Field.n), count: 4)
            for i in 0..<ones { hint[(i * 7) % 4][(i * 13) % Field.n] = true }
            let set = hint.reduce(0) { $0 + $1.filter { $0 }.count }
            #expect(Bounds.atMost(hint, omega) == (set <= omega))
        }
    }

    @Test func wipeZeroesTheArrayInPlace() {
        var secret = [UInt8](repeating: 0xA5, count: 97)
        let address = secret.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) }
        Wipe.array(&secret)
        #expect(secret == [UInt8](repeating: 0, count: 97))
        // The same storage was zeroed, not a copy of it.
        #expect(secret.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) } == address)

        var polynomials = [Polynomial(Array(1...256)), Polynomial([Int](repeating: Self.q - 1, count: 256))]
        Wipe.polynomials(&polynomials)
        #expect(polynomials == [.zero, .zero])

        var empty = [Int]()
        Wipe.array(&empty)
        #expect(empty.isEmpty)
    }

    /// The seed a key hands out is a copy: wiping it leaves the key whole.
    @Test func theSeedHandedOutIsACopy() throws {
        let key = try MLDSAPrivateKey(seed: [UInt8](repeating: 7, count: 32))
        var seed = key.seed
        Wipe.array(&seed)
        #expect(key.seed == [UInt8](repeating: 7, count: 32))
        let signature = key.signature(for: [1, 2, 3])
        #expect(key.publicKey.isValidSignature(signature, for: [1, 2, 3]))
    }
}
