/// The number-theoretic transform R_q → T_q and its inverse (FIPS 204 Algorithms 41 and 42).
enum NTT {
    /// NTT(w) (Algorithm 41).
    static func forward(_ w: Polynomial) -> Polynomial {
        var a = w
        var m = 0
        var length = 128
        while length >= 1 {
            var start = 0
            while start < Field.n {
                m += 1
                let z = Field.zetas[m]
                for j in start..<(start + length) {
                    let t = Field.reduce(z * a[j + length])
                    a[j + length] = Field.reduce(a[j] - t)
                    a[j] = Field.reduce(a[j] + t)
                }
                start += 2 * length
            }
            length /= 2
        }
        return a
    }

    /// NTT⁻¹(ŵ) (Algorithm 42), including the final scaling by 256⁻¹ mod q.
    static func inverse(_ w: Polynomial) -> Polynomial {
        var a = w
        var m = Field.n
        var length = 1
        while length < Field.n {
            var start = 0
            while start < Field.n {
                m -= 1
                let z = Field.q - Field.zetas[m]
                for j in start..<(start + length) {
                    let t = a[j]
                    a[j] = Field.reduce(t + a[j + length])
                    a[j + length] = Field.reduce(z * Field.reduce(t - a[j + length]))
                }
                start += 2 * length
            }
            length *= 2
        }
        let f = 8_347_681  // 256⁻¹ mod q
        return a.map { Field.reduce($0 * f) }
    }

    static func forward(_ v: [Polynomial]) -> [Polynomial] { v.map(forward) }
    static func inverse(_ v: [Polynomial]) -> [Polynomial] { v.map(inverse) }

    /// Â ∘ v̂ for a k×l matrix and an l-vector in T_q (FIPS 204 Algorithm 48, MatrixVectorNTT).
    static func multiply(_ a: [[Polynomial]], _ v: [Polynomial]) -> [Polynomial] {
        a.map { row in
            var sum = Polynomial.zero
            for (entry, component) in zip(row, v) { sum = sum + entry * component }
            return sum
        }
    }
}
