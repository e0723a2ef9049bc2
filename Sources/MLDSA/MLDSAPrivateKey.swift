/// An ML-DSA private key, kept as its 32-byte seed ξ and expanded once (FIPS 204 Algorithm 6,
/// ML-DSA.KeyGen_internal); signs pure ML-DSA (Algorithm 2). The seed and the expanded key live
/// in storage that is zeroed when the last copy of the key goes.
public struct MLDSAPrivateKey: Sendable {
    public let parameters: MLDSAParameters
    public let publicKey: MLDSAPublicKey
    private let seedStorage: SecretBytes
    private let expanded: ExpandedPrivateKey

    /// ξ, the form the keystore seals (as for swift-crypto's MLDSA65 seedRepresentation); a
    /// copy, which the caller wipes or lets go.
    public var seed: [UInt8] { seedStorage.bytes }

    /// ML-DSA.KeyGen_internal(ξ) (Algorithm 6). Throws for a seed that is not 32 bytes.
    public init(seed: some Collection<UInt8>, parameters: MLDSAParameters = .mldsa44) throws(MLDSAError) {
        var seed = Array(seed)
        defer { Wipe.array(&seed) }
        guard seed.count == 32 else { throw .seedLength }
        self.init(validSeed: seed, parameters: parameters)
    }

    /// A fresh key from the system's random generator.
    public init(parameters: MLDSAParameters = .mldsa44) {
        var generator = SystemRandomNumberGenerator()
        var seed = randomBytes(32, using: &generator)
        defer { Wipe.array(&seed) }
        self.init(validSeed: seed, parameters: parameters)
    }

    private init(validSeed seed: [UInt8], parameters: MLDSAParameters) {
        var input = seed + [UInt8(parameters.k), UInt8(parameters.l)]
        // (ρ, ρ′, K) ← H(ξ ‖ k ‖ l, 128) (Algorithm 6 step 1).
        var seedExpansion = SHAKE.digest(.shake256, input, count: 128)
        Wipe.array(&input)
        var rhoPrime = Array(seedExpansion[32..<96])
        let rho = Array(seedExpansion[0..<32])
        let matrix = Sampling.expandA(rho, parameters)
        var (s1, s2) = Sampling.expandS(rhoPrime, parameters)
        var t = zip(NTT.inverse(NTT.multiply(matrix, NTT.forward(s1))), s2).map { $0 + $1 }
        var t0 = [Polynomial]()
        var t1 = [Polynomial]()
        for polynomial in t {
            let split = polynomial.coefficients.map(Rounding.power2Round)
            t1.append(Polynomial(split.map(\.high)))
            t0.append(Polynomial(split.map { Field.reduce($0.low) }))
        }
        let publicKeyBytes = Encoding.encodePublicKey(rho: rho, t1: t1, parameters)

        self.parameters = parameters
        self.seedStorage = SecretBytes(seed)
        self.publicKey = MLDSAPublicKey(parameters: parameters, rawRepresentation: publicKeyBytes, rho: rho, t1: t1)
        self.expanded = ExpandedPrivateKey(
            rho: rho, signingKey: Array(seedExpansion[96..<128]),
            publicKeyHash: SHAKE.digest(.shake256, publicKeyBytes, count: 64),
            s1: &s1, s2: &s2, t0: &t0, parameters)
        Wipe.array(&seedExpansion)
        Wipe.array(&rhoPrime)
        Wipe.polynomials(&t)
    }

    /// Hedged ML-DSA.Sign (Algorithm 2) with 32 fresh random bytes and an empty context.
    public func signature(for message: some Collection<UInt8>) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        var randomness = randomBytes(32, using: &generator)
        defer { Wipe.array(&randomness) }
        return expanded.sign(formattedMessage: PureMessage.format(message, context: [])!, randomness: randomness)
    }

    /// Hedged ML-DSA.Sign (Algorithm 2) with a context string ctx of at most 255 bytes.
    public func signature(for message: some Collection<UInt8>, context: [UInt8]) throws(MLDSAError) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        var randomness = randomBytes(32, using: &generator)
        defer { Wipe.array(&randomness) }
        return try signature(for: message, context: context, randomness: randomness)
    }

    /// ML-DSA.Sign (Algorithm 2) with caller-chosen rnd (32 bytes; all zero is the deterministic
    /// variant), for known-answer tests. Throws for rnd of another length or ctx over 255 bytes.
    public func signature(for message: some Collection<UInt8>, context: [UInt8] = [], randomness: [UInt8])
        throws(MLDSAError) -> [UInt8]
    {
        guard randomness.count == 32 else { throw .randomnessLength }
        guard let formatted = PureMessage.format(message, context: context) else { throw .contextLength }
        return expanded.sign(formattedMessage: formatted, randomness: randomness)
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
    /// ctx must be at most 255 bytes (Algorithm 2 step 1, Algorithm 3 step 1).
    case contextLength
}

private func randomBytes(_ count: Int, using generator: inout SystemRandomNumberGenerator) -> [UInt8] {
    (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
}
