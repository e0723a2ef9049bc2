/// The rounding functions behind t1/t0 and the hint (FIPS 204 §7.4).
enum Rounding {
    /// Power2Round(r) (Algorithm 35): r = r1·2^d + r0 with r0 in (−2^(d−1), 2^(d−1)].
    static func power2Round(_ r: Int) -> (high: Int, low: Int) {
        let low = Field.centered(r, 1 << Field.d)
        return ((r - low) >> Field.d, low)
    }

    /// Decompose(r) (Algorithm 36): r = r1·2γ2 + r0, with the wrap at q − 1 folded to r1 = 0.
    static func decompose(_ r: Int, gamma2: Int) -> (high: Int, low: Int) {
        var low = Field.centered(r, 2 * gamma2)
        if r - low == Field.q - 1 {
            low -= 1
            return (0, low)
        }
        return ((r - low) / (2 * gamma2), low)
    }

    /// HighBits(r) (Algorithm 37).
    static func highBits(_ r: Int, gamma2: Int) -> Int { decompose(r, gamma2: gamma2).high }

    /// LowBits(r) (Algorithm 38).
    static func lowBits(_ r: Int, gamma2: Int) -> Int { decompose(r, gamma2: gamma2).low }

    /// MakeHint(z, r) (Algorithm 39): whether adding z changes r's high bits.
    static func makeHint(_ z: Int, _ r: Int, gamma2: Int) -> Bool {
        highBits(r, gamma2: gamma2) != highBits(Field.reduce(r + z), gamma2: gamma2)
    }

    /// UseHint(h, r) (Algorithm 40): r's high bits, corrected by the hint.
    static func useHint(_ hint: Bool, _ r: Int, gamma2: Int) -> Int {
        let m = (Field.q - 1) / (2 * gamma2)
        let (high, low) = decompose(r, gamma2: gamma2)
        guard hint else { return high }
        return low > 0 ? (high + 1) % m : (high - 1 + m) % m
    }
}
