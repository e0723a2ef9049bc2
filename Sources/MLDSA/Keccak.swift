/// Keccak-p[1600, 24], the permutation under SHAKE (FIPS 202 §3.3): θ, ρ, π, χ, ι on 25 little-endian lanes.
enum Keccak {
    /// ι's round constants (FIPS 202 §3.2.5, Algorithm 5 evaluated for the 24 rounds).
    private static let roundConstants: [UInt64] = [
        0x0000_0000_0000_0001, 0x0000_0000_0000_8082, 0x8000_0000_0000_808A, 0x8000_0000_8000_8000,
        0x0000_0000_0000_808B, 0x0000_0000_8000_0001, 0x8000_0000_8000_8081, 0x8000_0000_0000_8009,
        0x0000_0000_0000_008A, 0x0000_0000_0000_0088, 0x0000_0000_8000_8009, 0x0000_0000_8000_000A,
        0x0000_0000_8000_808B, 0x8000_0000_0000_008B, 0x8000_0000_0000_8089, 0x8000_0000_0000_8003,
        0x8000_0000_0000_8002, 0x8000_0000_0000_0080, 0x0000_0000_0000_800A, 0x8000_0000_8000_000A,
        0x8000_0000_8000_8081, 0x8000_0000_0000_8080, 0x0000_0000_8000_0001, 0x8000_0000_8000_8008
    ]
    /// ρ's offsets along π's cycle starting at lane 1 (FIPS 202 §3.2.2, Table 2).
    private static let rotations: [UInt64] = [
        1, 3, 6, 10, 15, 21, 28, 36, 45, 55, 2, 14, 27, 41, 56, 8, 25, 43, 62, 18, 39, 61, 20, 44
    ]
    /// π's lane cycle (FIPS 202 §3.2.3).
    private static let cycle: [Int] = [
        10, 7, 11, 17, 18, 3, 5, 16, 8, 21, 24, 4, 15, 23, 19, 13, 12, 2, 20, 14, 22, 9, 6, 1
    ]

    static func permute(_ a: inout [UInt64]) {
        var c = [UInt64](repeating: 0, count: 5)
        for round in 0..<24 {
            for x in 0..<5 { c[x] = a[x] ^ a[x + 5] ^ a[x + 10] ^ a[x + 15] ^ a[x + 20] }
            for x in 0..<5 {
                let d = c[(x + 4) % 5] ^ rotate(c[(x + 1) % 5], 1)
                for y in stride(from: 0, to: 25, by: 5) { a[y + x] ^= d }
            }
            var carried = a[1]
            for i in 0..<24 {
                let lane = cycle[i]
                let next = a[lane]
                a[lane] = rotate(carried, rotations[i])
                carried = next
            }
            for y in stride(from: 0, to: 25, by: 5) {
                for x in 0..<5 { c[x] = a[y + x] }
                for x in 0..<5 { a[y + x] ^= ~c[(x + 1) % 5] & c[(x + 2) % 5] }
            }
            a[0] ^= roundConstants[round]
        }
    }

    private static func rotate(_ lane: UInt64, _ by: UInt64) -> UInt64 { (lane << by) | (lane >> (64 - by)) }
}
