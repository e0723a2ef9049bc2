/// The pseudorandom samplers (FIPS 204 §7.3).
///
/// Rejection sampling is variable-time by design: how many bytes RejBoundedPoly and SampleInBall
/// read depends on the secret seed's output stream, as the standard specifies; it reveals nothing
/// about the accepted values.
enum Sampling {
    /// SampleInBall(ρ) (Algorithm 29): a polynomial with τ coefficients ±1 and the rest 0.
    static func sampleInBall(_ seed: [UInt8], tau: Int) -> Polynomial {
        var c = Polynomial.zero
        var xof = SHAKE(.shake256)
        xof.absorb(seed)
        let signs = xof.squeeze(8)
        for i in (Field.n - tau)..<Field.n {
            var j = Int(xof.nextByte())
            while j > i { j = Int(xof.nextByte()) }
            let h = i + tau - Field.n
            let negative = (signs[h / 8] >> (h % 8)) & 1 == 1
            c[i] = c[j]
            c[j] = negative ? Field.q - 1 : 1
        }
        return c
    }

    /// RejNTTPoly(ρ) (Algorithm 30): a uniform element of T_q from SHAKE128, three bytes per candidate (Algorithm 14).
    static func rejectionNTTPolynomial(_ seed: [UInt8]) -> Polynomial {
        var a = Polynomial.zero
        var xof = SHAKE(.shake128)
        xof.absorb(seed)
        var j = 0
        while j < Field.n {
            let b0 = Int(xof.nextByte())
            let b1 = Int(xof.nextByte())
            let b2 = Int(xof.nextByte()) & 0x7F
            let candidate = b0 | b1 << 8 | b2 << 16
            if candidate < Field.q {
                a[j] = candidate
                j += 1
            }
        }
        return a
    }

    /// RejBoundedPoly(ρ) (Algorithm 31): coefficients in [−η, η] from SHAKE256, two half-bytes per byte (Algorithm 15).
    static func rejectionBoundedPolynomial(_ seed: [UInt8], eta: Int) -> Polynomial {
        var a = Polynomial.zero
        var xof = SHAKE(.shake256)
        defer { xof.wipe() }  // it absorbed ρ′, a secret
        xof.absorb(seed)
        var j = 0
        while j < Field.n {
            let z = Int(xof.nextByte())
            for half in [z & 0x0F, z >> 4] where j < Field.n {
                if let coefficient = coefficient(fromHalfByte: half, eta: eta) {
                    a[j] = Field.reduce(coefficient)
                    j += 1
                }
            }
        }
        return a
    }

    /// CoeffFromHalfByte(b) (Algorithm 15): η − (b mod 5) for η = 2 and b < 15, η − b for η = 4 and b < 9.
    private static func coefficient(fromHalfByte b: Int, eta: Int) -> Int? {
        switch eta {
        case 2 where b < 15: return 2 - b % 5
        case 4 where b < 9: return 4 - b
        default: return nil
        }
    }

    /// ExpandA(ρ) (Algorithm 32): Â[r][s] = RejNTTPoly(ρ ‖ s ‖ r).
    static func expandA(_ rho: [UInt8], _ parameters: MLDSAParameters) -> [[Polynomial]] {
        (0..<parameters.k).map { r in
            (0..<parameters.l).map { s in rejectionNTTPolynomial(rho + [UInt8(s), UInt8(r)]) }
        }
    }

    /// ExpandS(ρ) (Algorithm 33): s1 from nonces 0..<l, s2 from l..<l+k, each a 16-bit little-endian suffix.
    static func expandS(_ rho: [UInt8], _ parameters: MLDSAParameters) -> (s1: [Polynomial], s2: [Polynomial]) {
        let vectors = (0..<(parameters.l + parameters.k)).map { r in
            var input = rho + littleEndian16(r)
            defer { Wipe.array(&input) }  // ρ′ is secret
            return rejectionBoundedPolynomial(input, eta: parameters.eta)
        }
        return (Array(vectors[..<parameters.l]), Array(vectors[parameters.l...]))
    }

    /// ExpandMask(ρ, μ) (Algorithm 34): y[r] = BitUnpack(H(ρ ‖ μ + r), γ1 − 1, γ1).
    static func expandMask(_ rho: [UInt8], _ counter: Int, _ parameters: MLDSAParameters) -> [Polynomial] {
        let bits = parameters.gamma1Bits
        return (0..<parameters.l).map { r in
            // ρ″ and the bytes of y are secret.
            var input = rho + littleEndian16(counter + r)
            var bytes = SHAKE.digest(.shake256, input, count: 32 * bits)
            defer {
                Wipe.array(&input)
                Wipe.array(&bytes)
            }
            return Encoding.bitUnpack(bytes[...], a: parameters.gamma1 - 1, b: parameters.gamma1)
        }
    }

    private static func littleEndian16(_ value: Int) -> [UInt8] { [UInt8(value & 0xFF), UInt8((value >> 8) & 0xFF)] }
}
