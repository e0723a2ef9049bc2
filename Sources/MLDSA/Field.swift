/// Arithmetic in Z_q and R_q = Z_q[X]/(X^256 + 1) for q = 2^23 − 2^13 + 1 (FIPS 204 §2.3, §7.5).
///
/// Coefficients are `Int` in [0, q); products of two fit in 64 bits, so reduction is a plain `%`.
enum Field {
    static let q = 8_380_417
    /// Dropped bits of t (FIPS 204 Table 1).
    static let d = 13
    static let n = 256
    /// ζ = 1753, a primitive 512th root of unity mod q.
    static let zeta = 1753

    /// ζ^BitRev8(m) mod q for m in 0..<256 (FIPS 204 Appendix B); indexed by the public loop counter only.
    static let zetas: [Int] = (0..<256).map { m in
        var reversed = 0
        for bit in 0..<8 where m & (1 << bit) != 0 { reversed |= 1 << (7 - bit) }
        return power(zeta, reversed)
    }

    /// value mod q in [0, q), for −2^46 < value < 2^48 (sums, differences and products of
    /// coefficients), without a division or a branch (Barrett reduction): it runs on secret
    /// coefficients while signing, and a debug build's `%` is a division whose time depends on
    /// its operands.
    @inline(__always) static func reduce(_ value: Int) -> Int {
        // A multiple of q (2^46 < q·2^24 < 2^47) makes the value positive, below 2^49.
        let x = UInt64(bitPattern: Int64(value + q << 24))
        // ⌊x·m / 2^64⌋ with m = ⌊2^64 / q⌋ is ⌊x/q⌋ or one less, so r is in [0, 2q).
        let quotient = x.multipliedFullWidth(by: barrett).high
        let r = Int(x &- quotient &* UInt64(q))
        return r - (q & ~negativeMask(r - q))
    }

    /// ⌊2^64 / q⌋, Barrett's multiplier for `reduce`.
    private static let barrett: UInt64 = UInt64.max / UInt64(q)

    static func power(_ base: Int, _ exponent: Int) -> Int {
        var result = 1
        var b = base % q
        var e = exponent
        while e > 0 {
            if e & 1 == 1 { result = result * b % q }
            b = b * b % q
            e >>= 1
        }
        return result
    }

    /// r mod± α: the representative in (−α/2, α/2] (FIPS 204 §2.3). Variable-time (a division
    /// by a run-time α, a branch on the result): for public values and tests only; the secret
    /// paths use `magnitude`, `Rounding.power2Round` and `Rounding.decompose`.
    static func centered(_ r: Int, _ alpha: Int) -> Int {
        let r0 = ((r % alpha) + alpha) % alpha
        return r0 > alpha / 2 ? r0 - alpha : r0
    }

    /// All ones when `x` is negative, else zero: a select without a branch.
    @inline(__always) static func negativeMask(_ x: Int) -> Int { x >> (Int.bitWidth - 1) }

    /// |r mod± q| for r in [0, q), the coefficient's size for the ∞-norm checks; without a
    /// branch or a division, as it runs on secret coefficients while signing.
    static func magnitude(_ r: Int) -> Int {
        let c = r - (negativeMask((q - 1) / 2 - r) & q)
        let sign = negativeMask(c)
        return (c ^ sign) - sign
    }
}

/// A polynomial in R_q or its NTT form T_q: 256 coefficients in [0, q).
struct Polynomial: Sendable, Equatable {
    var coefficients: [Int]

    init(_ coefficients: [Int]) { self.coefficients = coefficients }

    static var zero: Polynomial { Polynomial([Int](repeating: 0, count: Field.n)) }

    subscript(index: Int) -> Int {
        get { coefficients[index] }
        set { coefficients[index] = newValue }
    }

    func map(_ transform: (Int) -> Int) -> Polynomial { Polynomial(coefficients.map(transform)) }

    static func + (a: Polynomial, b: Polynomial) -> Polynomial {
        Polynomial((0..<Field.n).map { Field.reduce(a[$0] + b[$0]) })
    }
    static func - (a: Polynomial, b: Polynomial) -> Polynomial {
        Polynomial((0..<Field.n).map { Field.reduce(a[$0] - b[$0]) })
    }
    /// Pointwise product in T_q (FIPS 204 Algorithm 45, MultiplyNTT).
    static func * (a: Polynomial, b: Polynomial) -> Polynomial {
        Polynomial((0..<Field.n).map { Field.reduce(a[$0] * b[$0]) })
    }

    /// ‖w‖∞ over the centered representatives.
    var infinityNorm: Int { coefficients.reduce(0) { Swift.max($0, Field.magnitude($1)) } }
}
