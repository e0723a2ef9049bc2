/// An integer modulo n, the order of P-256's base point: ARKG's blinding adds two of them
/// (draft-bradleylundberg-cfrg-arkg-10 §3.1, BL-Blind-Private-Key: sk + tau) and hash_to_field
/// reduces a 48-byte string into one (RFC 9380 §5.2 step 7: OS2IP(tv) mod n).
///
/// swift-crypto keeps its scalar arithmetic internal (CryptoExtras' ECToolbox), so this is the
/// one piece of arithmetic passkeyd does itself (docs/algorithms.md says why not attaswift/BigInt):
/// addition modulo n, in constant time — no branch or memory index depends on a value — which is
/// all both uses need, since a reduction is a chain of modular doublings.
struct P256Scalar: Sendable, Equatable {
    /// Little-endian 64-bit limbs of a value below n.
    private var limbs: [UInt64]

    /// n = FFFFFFFF 00000000 FFFFFFFF FFFFFFFF BCE6FAAD A7179E84 F3B9CAC2 FC632551 (SEC 2 §2.4.2).
    private static let order: [UInt64] = [
        0xF3B9_CAC2_FC63_2551, 0xBCE6_FAAD_A717_9E84, 0xFFFF_FFFF_FFFF_FFFF, 0xFFFF_FFFF_0000_0000
    ]

    private init(limbs: [UInt64]) {
        self.limbs = limbs
    }

    /// A big-endian integer of any length, reduced modulo n: shifted in one bit at a time, each
    /// step a modular doubling and a modular addition of the bit.
    init(reducing bigEndian: [UInt8]) {
        var value = P256Scalar(limbs: [0, 0, 0, 0])
        for byte in bigEndian {
            for shift in stride(from: 7, through: 0, by: -1) {
                value = value + value
                value = value + P256Scalar(limbs: [UInt64((byte >> UInt8(shift)) & 1), 0, 0, 0])
            }
        }
        self = value
    }

    /// The 32-byte big-endian form (SEC 1 §2.3.7), as `P256.Signing.PrivateKey(rawRepresentation:)` takes it.
    var bigEndianBytes: [UInt8] {
        limbs.reversed().flatMap { limb in (0..<8).reversed().map { UInt8(truncatingIfNeeded: limb >> (8 * $0)) } }
    }

    /// Whether the value is 0, read without an early exit.
    var isZero: Bool {
        limbs.reduce(0, |) == 0
    }

    /// a + b mod n for a, b < n: the sum, or the sum minus n when the sum overflowed 2^256 or
    /// reached n, chosen by mask.
    static func + (a: P256Scalar, b: P256Scalar) -> P256Scalar {
        var sum = [UInt64](repeating: 0, count: 4)
        var reduced = sum
        var carry: UInt64 = 0
        var borrow: UInt64 = 0
        for i in 0..<4 {
            let (partial, overflow1) = a.limbs[i].addingReportingOverflow(b.limbs[i])
            let (total, overflow2) = partial.addingReportingOverflow(carry)
            sum[i] = total
            carry = (overflow1 ? 1 : 0) | (overflow2 ? 1 : 0)
        }
        for i in 0..<4 {
            let (partial, underflow1) = sum[i].subtractingReportingOverflow(order[i])
            let (difference, underflow2) = partial.subtractingReportingOverflow(borrow)
            reduced[i] = difference
            borrow = (underflow1 ? 1 : 0) | (underflow2 ? 1 : 0)
        }
        // Take the reduced value when the sum carried out or subtracting n did not borrow.
        let mask = 0 &- (carry | (borrow ^ 1))
        return P256Scalar(limbs: (0..<4).map { (reduced[$0] & mask) | (sum[$0] & ~mask) })
    }
}
