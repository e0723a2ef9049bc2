/// An ML-DSA public key (pkEncode's bytes) and pure ML-DSA verification (FIPS 204 Algorithm 3).
public struct MLDSAPublicKey: Sendable, Equatable {
    public let parameters: MLDSAParameters
    public let rawRepresentation: [UInt8]
    let rho: [UInt8]
    let t1: [Polynomial]

    init(parameters: MLDSAParameters, rawRepresentation: [UInt8], rho: [UInt8], t1: [Polynomial]) {
        self.parameters = parameters
        self.rawRepresentation = rawRepresentation
        self.rho = rho
        self.t1 = t1
    }

    /// pkDecode(pk) (Algorithm 23). Throws unless pk is exactly the parameter set's length.
    public init(rawRepresentation: some Collection<UInt8>, parameters: MLDSAParameters = .mldsa44) throws(MLDSAError) {
        let bytes = Array(rawRepresentation)
        guard let (rho, t1) = Encoding.decodePublicKey(bytes, parameters) else { throw .publicKeyLength }
        self.init(parameters: parameters, rawRepresentation: bytes, rho: rho, t1: t1)
    }

    /// ML-DSA.Verify(pk, M, σ, ctx) (Algorithm 3). False, never a trap, for any malformed
    /// signature, and for ctx over 255 bytes (the algorithm's error: no signature is valid for it).
    public func isValidSignature(
        _ signature: some Collection<UInt8>, for message: some Collection<UInt8>, context: [UInt8] = []
    ) -> Bool {
        guard let formatted = PureMessage.format(message, context: context) else { return false }
        return isValidSignature(Array(signature), formattedMessage: formatted)
    }

    /// ML-DSA.Verify_internal(pk, M′, σ) (Algorithm 8) for an already formatted M′.
    func isValidSignature(_ signature: [UInt8], formattedMessage: [UInt8]) -> Bool {
        let publicKeyHash = SHAKE.digest(.shake256, rawRepresentation, count: 64)
        return isValidSignature(signature, mu: SHAKE.digest(.shake256, publicKeyHash + formattedMessage, count: 64))
    }

    /// Algorithm 8 from step 7 on, given μ = H(tr ‖ M′, 64) (the "external μ" form ACVP tests).
    func isValidSignature(_ signature: [UInt8], mu: [UInt8]) -> Bool {
        let p = parameters
        guard let (commitment, z, h) = Encoding.decodeSignature(signature, p),
            z.map(\.infinityNorm).max() ?? 0 < p.gamma1 - p.beta
        else { return false }
        let matrix = Sampling.expandA(rho, p)
        let c = NTT.forward(Sampling.sampleInBall(commitment, tau: p.tau))
        let t1Scaled = NTT.forward(t1.map { $0.map { $0 << Field.d } })
        let approximation = NTT.inverse(zip(NTT.multiply(matrix, NTT.forward(z)), t1Scaled).map { $0 - c * $1 })
        let w1 = (0..<p.k).map { i in
            Polynomial((0..<Field.n).map { j in Rounding.useHint(h[i][j], approximation[i][j], gamma2: p.gamma2) })
        }
        let recomputed = SHAKE.digest(.shake256, mu + Encoding.encodeW1(w1, p), count: p.c̃Length)
        return recomputed == commitment
    }
}
