/// One ML-DSA parameter set (FIPS 204 §4, Table 1). Only ML-DSA-44 is wired; 65 and 87 are the same code with other values.
public struct MLDSAParameters: Sendable, Equatable {
    /// Rows of A (the length of t, s2 and the hint).
    public let k: Int
    /// Columns of A (the length of y, z and s1).
    public let l: Int
    /// The private-key range: s1, s2 coefficients lie in [−η, η].
    public let eta: Int
    /// The number of ±1 coefficients in the challenge c.
    public let tau: Int
    /// τ·η, the bound on c·s1 and c·s2 coefficients.
    public let beta: Int
    /// The masking range: y coefficients lie in (−γ1, γ1].
    public let gamma1: Int
    /// The low-order rounding range.
    public let gamma2: Int
    /// The most ones a hint may hold.
    public let omega: Int
    /// The collision strength of c̃, in bits.
    public let lambda: Int

    public static let mldsa44 = MLDSAParameters(
        k: 4, l: 4, eta: 2, tau: 39, beta: 78, gamma1: 1 << 17, gamma2: (Field.q - 1) / 88, omega: 80, lambda: 128)
    public static let mldsa65 = MLDSAParameters(
        k: 6, l: 5, eta: 4, tau: 49, beta: 196, gamma1: 1 << 19, gamma2: (Field.q - 1) / 32, omega: 55, lambda: 192)
    public static let mldsa87 = MLDSAParameters(
        k: 8, l: 7, eta: 2, tau: 60, beta: 120, gamma1: 1 << 19, gamma2: (Field.q - 1) / 32, omega: 75, lambda: 256)

    /// Bits per z coefficient: 1 + bitlen(γ1 − 1) (FIPS 204 Algorithm 34).
    var gamma1Bits: Int { 1 + bitLength(gamma1 - 1) }
    /// Bits per w1 coefficient: bitlen((q − 1)/(2γ2) − 1) (Algorithm 28).
    var w1Bits: Int { bitLength((Field.q - 1) / (2 * gamma2) - 1) }
    /// The length of the commitment hash c̃ in bytes: λ/4.
    var c̃Length: Int { lambda / 4 }

    /// pkEncode's length: 32 + 32·k·(bitlen(q − 1) − d) (FIPS 204 Table 2).
    public var publicKeyLength: Int { 32 + 32 * k * t1Bits }
    /// sigEncode's length: λ/4 + 32·l·(1 + bitlen(γ1 − 1)) + ω + k (Table 2).
    public var signatureLength: Int { c̃Length + 32 * l * gamma1Bits + omega + k }

    /// Bits per t1 coefficient: bitlen(q − 1) − d = 10.
    var t1Bits: Int { bitLength(Field.q - 1) - Field.d }
}

func bitLength(_ value: Int) -> Int { value <= 0 ? 0 : Int.bitWidth - value.leadingZeroBitCount }
