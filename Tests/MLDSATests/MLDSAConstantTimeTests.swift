import Testing

@testable import MLDSA

/// The branch- and division-free rounding (issue 33, finding 6) against FIPS 204's definitions,
/// for every coefficient r in [0, q).
@Suite struct MLDSAConstantTimeTests {
    /// Algorithm 36 as written: r0 = r mod± 2γ2, the wrap at q − 1 folded to r1 = 0.
    static func decomposeAsDefined(_ r: Int, gamma2: Int) -> (high: Int, low: Int) {
        let low = Field.centered(r, 2 * gamma2)
        if r - low == Field.q - 1 { return (0, low - 1) }
        return ((r - low) / (2 * gamma2), low)
    }

    @Test(arguments: [(Field.q - 1) / 88, (Field.q - 1) / 32])
    func decomposeIsAlgorithm36ForEveryCoefficient(gamma2: Int) {
        var mismatches = 0
        for r in 0..<Field.q where Rounding.decompose(r, gamma2: gamma2) != Self.decomposeAsDefined(r, gamma2: gamma2) {
            mismatches += 1
        }
        #expect(mismatches == 0)
    }

    @Test func power2RoundAndMagnitudeAreTheirDefinitionsForEveryCoefficient() {
        var mismatches = 0
        for r in 0..<Field.q {
            let low = Field.centered(r, 1 << Field.d)
            if Rounding.power2Round(r) != ((r - low) >> Field.d, low) { mismatches += 1 }
            if Field.magnitude(r) != abs(Field.centered(r, Field.q)) { mismatches += 1 }
        }
        #expect(mismatches == 0)
    }

    /// Barrett's `reduce` is `mod q` over every range it is given: sums and differences of
    /// coefficients, every product of two (up to (q − 1)²), and the ends of its stated domain.
    @Test func reduceIsModQWithoutADivision() {
        let q = Field.q
        func modQ(_ v: Int) -> Int { ((v % q) + q) % q }
        var mismatches = 0
        let edges = [
            0, 1, q - 1, q, q + 1, 2 * q - 1, 2 * q, -1, -q, -q + 1, -2 * q, (q - 1) * (q - 1),
            -(1 << 46) + 1, (1 << 48) - 1
        ]
        for v in edges where Field.reduce(v) != modQ(v) { mismatches += 1 }
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<200_000 {
            let a = Int.random(in: 0..<q, using: &generator)
            let b = Int.random(in: 0..<q, using: &generator)
            for v in [a * b, a - b, a + b, Int.random(in: -(1 << 46) + 1..<(1 << 48), using: &generator)]
            where Field.reduce(v) != modQ(v) {
                mismatches += 1
            }
        }
        #expect(mismatches == 0)
    }
}
