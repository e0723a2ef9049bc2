/// An ML-DSA private key, kept as its 32-byte seed ξ and expanded once (FIPS 204 Algorithm 6,
/// ML-DSA.KeyGen_internal); signs pure ML-DSA with an empty context (Algorithm 2).
public struct MLDSAPrivateKey: Sendable {
    public let parameters: MLDSAParameters
    /// ξ, the form the keystore seals (as for swift-crypto's MLDSA65 seedRepresentation).
    public let seed: [UInt8]
    public let publicKey: MLDSAPublicKey

    private let matrix: [[Polynomial]]
    private let signingKey: [UInt8]
    private let publicKeyHash: [UInt8]
    private let s1: [Polynomial]
    private let s2: [Polynomial]
    private let t0: [Polynomial]

    /// ML-DSA.KeyGen_internal(ξ) (Algorithm 6). Throws for a seed that is not 32 bytes.
    public init(seed: some Collection<UInt8>, parameters: MLDSAParameters = .mldsa44) throws(MLDSAError) {
        let seed = Array(seed)
        guard seed.count == 32 else { throw .seedLength }
        self.init(validSeed: seed, parameters: parameters)
    }

    /// A fresh key from the system's random generator.
    public init(parameters: MLDSAParameters = .mldsa44) {
        var generator = SystemRandomNumberGenerator()
        self.init(validSeed: randomBytes(32, using: &generator), parameters: parameters)
    }

    private init(validSeed seed: [UInt8], parameters: MLDSAParameters) {
        let expanded = SHAKE.digest(.shake256, seed + [UInt8(parameters.k), UInt8(parameters.l)], count: 128)
        let rho = Array(expanded[0..<32]), rhoPrime = Array(expanded[32..<96])
        let matrix = Sampling.expandA(rho, parameters)
        let (s1, s2) = Sampling.expandS(rhoPrime, parameters)
        let s1Hat = NTT.forward(s1)
        let t = zip(NTT.inverse(NTT.multiply(matrix, s1Hat)), s2).map { $0 + $1 }
        let split = t.map { polynomial in polynomial.coefficients.map(Rounding.power2Round) }
        let t1 = split.map { Polynomial($0.map(\.high)) }
        let publicKeyBytes = Encoding.encodePublicKey(rho: rho, t1: t1, parameters)

        self.parameters = parameters
        self.seed = seed
        self.publicKey = MLDSAPublicKey(parameters: parameters, rawRepresentation: publicKeyBytes, rho: rho, t1: t1)
        self.matrix = matrix
        self.signingKey = Array(expanded[96..<128])
        self.publicKeyHash = SHAKE.digest(.shake256, publicKeyBytes, count: 64)
        self.s1 = s1Hat
        self.s2 = NTT.forward(s2)
        self.t0 = NTT.forward(split.map { Polynomial($0.map { Field.reduce($0.low) }) })
    }

    /// Hedged ML-DSA.Sign (Algorithm 2) with 32 fresh random bytes and an empty context.
    public func signature(for message: some Collection<UInt8>) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return signInternal(MLDSAPublicKey.pureMessage(message), randomness: randomBytes(32, using: &generator))
    }

    /// ML-DSA.Sign with caller-chosen rnd (32 bytes; all zero is the deterministic variant), for known-answer tests.
    public func signature(for message: some Collection<UInt8>, randomness: [UInt8]) throws(MLDSAError) -> [UInt8] {
        guard randomness.count == 32 else { throw .randomnessLength }
        return signInternal(MLDSAPublicKey.pureMessage(message), randomness: randomness)
    }

    /// ML-DSA.Sign_internal (Algorithm 7): the rejection loop over masks y until z, r0, ct0 and the hint are in bounds.
    private func signInternal(_ formatted: [UInt8], randomness: [UInt8]) -> [UInt8] {
        let p = parameters
        let mu = SHAKE.digest(.shake256, publicKeyHash + formatted, count: 64)
        let rhoPrimePrime = SHAKE.digest(.shake256, signingKey + randomness + mu, count: 64)
        var counter = 0
        while true {
            let y = Sampling.expandMask(rhoPrimePrime, counter, p)
            counter += p.l
            let w = NTT.inverse(NTT.multiply(matrix, NTT.forward(y)))
            let w1 = w.map { $0.map { Rounding.highBits($0, gamma2: p.gamma2) } }
            let commitment = SHAKE.digest(.shake256, mu + Encoding.encodeW1(w1, p), count: p.c̃Length)
            let c = NTT.forward(Sampling.sampleInBall(commitment, tau: p.tau))
            let cs1 = NTT.inverse(s1.map { c * $0 })
            let cs2 = NTT.inverse(s2.map { c * $0 })
            let z = zip(y, cs1).map { $0 + $1 }
            let wMinusCs2 = zip(w, cs2).map { $0 - $1 }
            let r0Norm = wMinusCs2.map { $0.coefficients.reduce(0) { max($0, abs(Rounding.lowBits($1, gamma2: p.gamma2))) } }.max() ?? 0
            guard z.map(\.infinityNorm).max() ?? 0 < p.gamma1 - p.beta, r0Norm < p.gamma2 - p.beta else { continue }
            let ct0 = NTT.inverse(t0.map { c * $0 })
            let hint = (0..<p.k).map { i in
                let r = wMinusCs2[i] + ct0[i]
                return (0..<Field.n).map { j in Rounding.makeHint(Field.reduce(-ct0[i][j]), r[j], gamma2: p.gamma2) }
            }
            let ones = hint.reduce(0) { $0 + $1.filter { $0 }.count }
            guard ct0.map(\.infinityNorm).max() ?? 0 < p.gamma2, ones <= p.omega else { continue }
            return Encoding.encodeSignature(commitment: commitment, z: z, h: hint, p)
        }
    }
}

/// Why an ML-DSA key or signing input was refused.
public enum MLDSAError: Error, Sendable, Equatable {
    /// ξ must be 32 bytes (FIPS 204 Algorithm 6).
    case seedLength
    /// pk must be pkEncode's exact length for the parameter set (Table 2).
    case publicKeyLength
    /// rnd must be 32 bytes (Algorithm 2).
    case randomnessLength
}

private func randomBytes(_ count: Int, using generator: inout SystemRandomNumberGenerator) -> [UInt8] {
    (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
}
