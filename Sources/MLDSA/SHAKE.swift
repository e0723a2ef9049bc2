/// The SHAKE128 and SHAKE256 extendable-output functions over Keccak-f[1600] (FIPS 202 §3.3, §6.2):
/// absorb any number of times, then squeeze any number of bytes.
public struct SHAKE: Sendable {
    /// The two XOFs ML-DSA uses: SHAKE128 for ExpandA (G), SHAKE256 for everything else (H).
    public enum Variant: Sendable {
        case shake128, shake256

        /// The sponge's rate in bytes, 1600 − 2·security bits (FIPS 202 §6.2).
        var rate: Int { self == .shake128 ? 168 : 136 }
    }

    private var state = [UInt64](repeating: 0, count: 25)
    private let rate: Int
    private var offset = 0
    private var squeezing = false

    public init(_ variant: Variant) { rate = variant.rate }

    /// Appends input; only before the first squeeze (the sponge's absorbing phase).
    public mutating func absorb(_ bytes: some Sequence<UInt8>) {
        precondition(!squeezing, "SHAKE absorbs only before it squeezes")
        for byte in bytes {
            xor(byte, at: offset)
            offset += 1
            if offset == rate {
                Keccak.permute(&state)
                offset = 0
            }
        }
    }

    /// The next `count` output bytes; the first call pads with SHAKE's suffix 1111 and pad10*1 (FIPS 202 §5.1, §6.2).
    public mutating func squeeze(_ count: Int) -> [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity(count)
        for _ in 0..<count { out.append(nextByte()) }
        return out
    }

    /// One output byte, for the rejection samplers that read the stream a byte at a time.
    mutating func nextByte() -> UInt8 {
        if !squeezing {
            xor(0x1F, at: offset)
            xor(0x80, at: rate - 1)
            Keccak.permute(&state)
            offset = 0
            squeezing = true
        }
        if offset == rate {
            Keccak.permute(&state)
            offset = 0
        }
        let byte = UInt8(truncatingIfNeeded: state[offset / 8] >> (8 * UInt64(offset % 8)))
        offset += 1
        return byte
    }

    /// SHAKE(`input`, 8·`count`) in one call.
    public static func digest(_ variant: Variant, _ input: some Sequence<UInt8>, count: Int) -> [UInt8] {
        var xof = SHAKE(variant)
        defer { xof.wipe() }
        xof.absorb(input)
        return xof.squeeze(count)
    }

    /// Zeroes the sponge's state, which holds a function of what it absorbed (secret seeds and
    /// keys); the instance is not used afterwards.
    mutating func wipe() {
        Wipe.array(&state)
    }

    private mutating func xor(_ byte: UInt8, at index: Int) {
        state[index / 8] ^= UInt64(byte) << (8 * UInt64(index % 8))
    }
}
