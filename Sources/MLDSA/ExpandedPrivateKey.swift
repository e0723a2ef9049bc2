/// FIPS 204's private key sk = (ρ, K, tr, s1, s2, t0) (Algorithm 6 line 10), held in the form
/// signing uses (s1, s2, t0 in the NTT domain, Â expanded) and zeroed when the last reference
/// goes (issue 33, F6). Signs with Sign_internal (Algorithm 7).
///
/// A final class so that its storage has one owner, which `deinit` wipes; its stored arrays are
/// never handed out, so they stay uniquely referenced and are wiped in place.
final class ExpandedPrivateKey: @unchecked Sendable {
    // @unchecked: the vars are written only by `deinit`, when no other reference exists.
    let parameters: MLDSAParameters
    /// Â = ExpandA(ρ): public, kept to avoid re-sampling it for every signature.
    let matrix: [[Polynomial]]
    /// tr = H(pk, 64).
    let publicKeyHash: [UInt8]
    /// K, the key of the private random seed ρ″.
    private var signingKey: [UInt8]
    private var s1: [Polynomial]
    private var s2: [Polynomial]
    private var t0: [Polynomial]

    /// From sk's parts in the normal domain; s1, s2 and t0 (coefficients in [0, q)) are consumed and wiped.
    init(
        rho: [UInt8], signingKey: [UInt8], publicKeyHash: [UInt8], s1: inout [Polynomial], s2: inout [Polynomial],
        t0: inout [Polynomial], _ parameters: MLDSAParameters
    ) {
        self.parameters = parameters
        self.matrix = Sampling.expandA(rho, parameters)
        self.publicKeyHash = publicKeyHash
        self.signingKey = signingKey
        self.s1 = NTT.forward(s1)
        self.s2 = NTT.forward(s2)
        self.t0 = NTT.forward(t0)
        Wipe.polynomials(&s1)
        Wipe.polynomials(&s2)
        Wipe.polynomials(&t0)
    }

    /// skDecode(sk) (Algorithm 25); nil unless sk has the parameter set's exact length. Like the
    /// standard's, it does not check that s1 and s2 lie in [−η, η]: sk is trusted input.
    convenience init?(encoded sk: [UInt8], _ parameters: MLDSAParameters) {
        let p = parameters
        let etaSize = 32 * bitLength(2 * p.eta)
        let t0Size = 32 * Field.d
        guard sk.count == 128 + (p.l + p.k) * etaSize + p.k * t0Size else { return nil }
        func polynomials(from start: Int, count: Int, size: Int, a: Int, b: Int) -> [Polynomial] {
            (0..<count).map { i in Encoding.bitUnpack(sk[(start + i * size)..<(start + (i + 1) * size)], a: a, b: b) }
        }
        var s1 = polynomials(from: 128, count: p.l, size: etaSize, a: p.eta, b: p.eta)
        var s2 = polynomials(from: 128 + p.l * etaSize, count: p.k, size: etaSize, a: p.eta, b: p.eta)
        let half = 1 << (Field.d - 1)
        var t0 = polynomials(from: 128 + (p.l + p.k) * etaSize, count: p.k, size: t0Size, a: half - 1, b: half)
        self.init(
            rho: Array(sk[0..<32]), signingKey: Array(sk[32..<64]), publicKeyHash: Array(sk[64..<128]), s1: &s1,
            s2: &s2, t0: &t0, p)
    }

    deinit {
        Wipe.array(&signingKey)
        Wipe.polynomials(&s1)
        Wipe.polynomials(&s2)
        Wipe.polynomials(&t0)
    }

    /// ML-DSA.Sign_internal(sk, M′, rnd) (Algorithm 7): the rejection loop over masks y until z,
    /// r0, ct0 and the hint are in bounds. Each bound is checked over every coefficient before
    /// the one decision (`Bounds`), and each rejected attempt's secrets are wiped.
    func sign(formattedMessage: [UInt8], randomness: [UInt8]) -> [UInt8] {
        let p = parameters
        let mu = SHAKE.digest(.shake256, publicKeyHash + formattedMessage, count: 64)
        var seedInput = signingKey + randomness + mu
        var rhoPrimePrime = SHAKE.digest(.shake256, seedInput, count: 64)
        Wipe.array(&seedInput)
        defer { Wipe.array(&rhoPrimePrime) }
        var counter = 0
        while true {
            var y = Sampling.expandMask(rhoPrimePrime, counter, p)
            counter += p.l
            var w = NTT.inverse(NTT.multiply(matrix, NTT.forward(y)))
            let w1 = w.map { $0.map { Rounding.highBits($0, gamma2: p.gamma2) } }
            let commitment = SHAKE.digest(.shake256, mu + Encoding.encodeW1(w1, p), count: p.c̃Length)
            let c = NTT.forward(Sampling.sampleInBall(commitment, tau: p.tau))
            var cs1 = NTT.inverse(s1.map { c * $0 })
            var cs2 = NTT.inverse(s2.map { c * $0 })
            var z = zip(y, cs1).map { $0 + $1 }
            var r = zip(w, cs2).map { $0 - $1 }
            var ct0 = NTT.inverse(t0.map { c * $0 })
            var r0 = r.map { $0.map { Field.reduce(Rounding.lowBits($0, gamma2: p.gamma2)) } }
            var hint = (0..<p.k).map { i in
                let sum = r[i] + ct0[i]
                return (0..<Field.n).map { j in Rounding.makeHint(Field.reduce(-ct0[i][j]), sum[j], gamma2: p.gamma2) }
            }
            defer {
                Wipe.polynomials(&y)
                Wipe.polynomials(&r0)
                Wipe.polynomials(&w)
                Wipe.polynomials(&cs1)
                Wipe.polynomials(&cs2)
                Wipe.polynomials(&r)
                Wipe.polynomials(&ct0)
            }
            // Steps 23 and 28, every condition computed over every coefficient before the one branch.
            let zInBounds = Bounds.allBelow(z, p.gamma1 - p.beta)
            let r0InBounds = Bounds.allBelow(r0, p.gamma2 - p.beta)
            let ct0InBounds = Bounds.allBelow(ct0, p.gamma2)
            let hintInBounds = Bounds.atMost(hint, p.omega)
            guard zInBounds && r0InBounds && ct0InBounds && hintInBounds else {
                Wipe.polynomials(&z)
                for i in hint.indices { Wipe.array(&hint[i]) }
                continue
            }
            return Encoding.encodeSignature(commitment: commitment, z: z, h: hint, p)
        }
    }
}
