/// Bit packing of polynomials, keys and signatures (FIPS 204 §7.1, §7.2). Bits run least significant first.
enum Encoding {
    /// SimpleBitPack(w, 2^bits − 1) (Algorithm 16) for coefficients already in [0, 2^bits).
    static func simpleBitPack(_ w: Polynomial, bits: Int) -> [UInt8] {
        pack(w.coefficients, bits: bits)
    }

    /// SimpleBitUnpack(v, 2^bits − 1) (Algorithm 18).
    static func simpleBitUnpack(_ v: ArraySlice<UInt8>, bits: Int) -> Polynomial {
        Polynomial(unpack(v, bits: bits))
    }

    /// BitPack(w, a, b) (Algorithm 17): each coefficient in [−a, b] stored as b − w in bitlen(a + b) bits.
    static func bitPack(_ w: Polynomial, a: Int, b: Int) -> [UInt8] {
        pack(w.coefficients.map { Field.reduce(b - $0) }, bits: bitLength(a + b))
    }

    /// BitUnpack(v, a, b) (Algorithm 19).
    static func bitUnpack(_ v: ArraySlice<UInt8>, a: Int, b: Int) -> Polynomial {
        Polynomial(unpack(v, bits: bitLength(a + b)).map { Field.reduce(b - $0) })
    }

    /// HintBitPack(h) (Algorithm 20): the positions of the ones, then each polynomial's running count.
    static func hintBitPack(_ h: [[Bool]], omega: Int) -> [UInt8] {
        var y = [UInt8](repeating: 0, count: omega + h.count)
        var index = 0
        for (i, polynomial) in h.enumerated() {
            for (j, bit) in polynomial.enumerated() where bit {
                y[index] = UInt8(j)
                index += 1
            }
            y[omega + i] = UInt8(index)
        }
        return y
    }

    /// HintBitUnpack(y) (Algorithm 21): nil for a malformed hint (counts out of order or past ω,
    /// positions not strictly increasing, nonzero padding), which makes the signature invalid.
    static func hintBitUnpack(_ y: ArraySlice<UInt8>, k: Int, omega: Int) -> [[Bool]]? {
        let y = Array(y)
        guard y.count == omega + k else { return nil }
        var h = [[Bool]](repeating: [Bool](repeating: false, count: Field.n), count: k)
        var index = 0
        for i in 0..<k {
            let end = Int(y[omega + i])
            guard end >= index, end <= omega else { return nil }
            let first = index
            while index < end {
                if index > first, y[index - 1] >= y[index] { return nil }
                h[i][Int(y[index])] = true
                index += 1
            }
        }
        for i in index..<omega where y[i] != 0 { return nil }
        return h
    }

    /// pkEncode(ρ, t1) (Algorithm 22).
    static func encodePublicKey(rho: [UInt8], t1: [Polynomial], _ parameters: MLDSAParameters) -> [UInt8] {
        t1.reduce(rho) { $0 + simpleBitPack($1, bits: parameters.t1Bits) }
    }

    /// pkDecode(pk) (Algorithm 23); nil unless pk has the parameter set's exact length.
    static func decodePublicKey(_ pk: [UInt8], _ parameters: MLDSAParameters) -> (rho: [UInt8], t1: [Polynomial])? {
        guard pk.count == parameters.publicKeyLength else { return nil }
        let size = 32 * parameters.t1Bits
        let t1 = (0..<parameters.k).map { i in
            simpleBitUnpack(pk[(32 + i * size)..<(32 + (i + 1) * size)], bits: parameters.t1Bits)
        }
        return (Array(pk[..<32]), t1)
    }

    /// sigEncode(c̃, z, h) (Algorithm 26).
    static func encodeSignature(commitment: [UInt8], z: [Polynomial], h: [[Bool]], _ parameters: MLDSAParameters)
        -> [UInt8]
    {
        z.reduce(commitment) { $0 + bitPack($1, a: parameters.gamma1 - 1, b: parameters.gamma1) }
            + hintBitPack(h, omega: parameters.omega)
    }

    /// sigDecode(σ) (Algorithm 27); nil for a wrong length or a malformed hint.
    static func decodeSignature(_ sigma: [UInt8], _ parameters: MLDSAParameters) -> (
        commitment: [UInt8], z: [Polynomial], h: [[Bool]]
    )? {
        guard sigma.count == parameters.signatureLength else { return nil }
        let commitmentLength = parameters.c̃Length
        let size = 32 * parameters.gamma1Bits
        let z = (0..<parameters.l).map { i in
            bitUnpack(
                sigma[(commitmentLength + i * size)..<(commitmentLength + (i + 1) * size)], a: parameters.gamma1 - 1,
                b: parameters.gamma1)
        }
        guard
            let h = hintBitUnpack(
                sigma[(commitmentLength + parameters.l * size)...], k: parameters.k, omega: parameters.omega)
        else { return nil }
        return (Array(sigma[..<commitmentLength]), z, h)
    }

    /// w1Encode(w1) (Algorithm 28).
    static func encodeW1(_ w1: [Polynomial], _ parameters: MLDSAParameters) -> [UInt8] {
        w1.flatMap { simpleBitPack($0, bits: parameters.w1Bits) }
    }

    /// 256 values of `bits` bits each, concatenated least significant bit first.
    private static func pack(_ values: [Int], bits: Int) -> [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity(values.count * bits / 8)
        var accumulator = 0
        var held = 0
        for value in values {
            accumulator |= value << held
            held += bits
            while held >= 8 {
                out.append(UInt8(accumulator & 0xFF))
                accumulator >>= 8
                held -= 8
            }
        }
        return out
    }

    private static func unpack(_ bytes: ArraySlice<UInt8>, bits: Int) -> [Int] {
        var values = [Int]()
        values.reserveCapacity(Field.n)
        var accumulator = 0
        var held = 0
        let mask = (1 << bits) - 1
        for byte in bytes {
            accumulator |= Int(byte) << held
            held += 8
            while held >= bits, values.count < Field.n {
                values.append(accumulator & mask)
                accumulator >>= bits
                held -= bits
            }
        }
        return values
    }
}
