/// The rounding functions behind t1/t0 and the hint (FIPS 204 §7.4).
enum Rounding {
    /// Power2Round(r) (Algorithm 35) for r in [0, q): r = r1·2^d + r0 with r0 in
    /// (−2^(d−1), 2^(d−1)]. Masks and shifts only: r is a secret coefficient of t.
    static func power2Round(_ r: Int) -> (high: Int, low: Int) {
        var low = r & ((1 << Field.d) - 1)
        low -= Field.negativeMask((1 << (Field.d - 1)) - low) & (1 << Field.d)
        return ((r - low) >> Field.d, low)
    }

    /// Decompose(r) (Algorithm 36) for r in [0, q): r = r1·2γ2 + r0, with the wrap at q − 1
    /// folded to r1 = 0 and r0 = r − q. Signing runs it on secret values (w − c·s2), so there is
    /// no division by the run-time γ2 and no branch on r (the KyberSlash pattern): r1 is
    /// ⌈r / 128⌉ times a fixed-point reciprocal of 2γ2/128 (1025/2^22 for γ2 = (q−1)/32,
    /// 11275/2^24 for (q−1)/88), exact on [0, q) (checked against the definition for every r
    /// by `MLDSAConstantTimeTests`), and the wrap is a mask. The branch is on γ2, a public parameter.
    static func decompose(_ r: Int, gamma2: Int) -> (high: Int, low: Int) {
        var high = (r + 127) >> 7
        if gamma2 == (Field.q - 1) / 32 {
            high = ((high * 1025 + (1 << 21)) >> 22) & 15
        } else {
            high = (high * 11275 + (1 << 23)) >> 24
            high ^= Field.negativeMask(43 - high) & high  // 44, the wrap, becomes 0
        }
        var low = r - high * 2 * gamma2
        low -= Field.negativeMask((Field.q - 1) / 2 - low) & Field.q
        return (high, low)
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
