/// Comparison whose running time depends only on the lengths, never on where bytes differ,
/// for MACs and PIN hashes (CTAP 2.1 §6.5.6 verify).
public enum ConstantTime {
    @inline(never)
    public static func equals(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for i in a.indices { difference |= a[i] ^ b[i] }
        return difference == 0
    }
}
