/// The rejection conditions of ML-DSA.Sign_internal (FIPS 204 Algorithm 7 steps 23 and 28),
/// over secret coefficients (z, r0, ct0, the hint): every coefficient is examined and folded into
/// a mask, so the time taken says nothing about where, or whether early, a bound is exceeded.
/// Only the final verdict, which the rejection loop reveals anyway, is a branch.
enum Bounds {
    /// ‖v[i]‖∞ < bound for every i; coefficients in [0, q).
    static func allBelow(_ v: [Polynomial], _ bound: Int) -> Bool {
        // The sign bit survives the AND only if every |c| − bound is negative.
        var all = -1
        for polynomial in v {
            for coefficient in polynomial.coefficients { all &= Field.magnitude(coefficient) - bound }
        }
        return all < 0
    }

    /// The hint holds at most ω ones (step 28's second condition).
    static func atMost(_ hint: [[Bool]], _ omega: Int) -> Bool {
        var ones = 0
        for polynomial in hint {
            for bit in polynomial { ones += Int(unsafeBitCast(bit, to: UInt8.self)) }
        }
        return ones <= omega
    }
}
