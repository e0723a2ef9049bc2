#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Bytes from the kernel's CSPRNG, one `getrandom(2)` per 256 bytes (`getentropy(3)`). Swift's
/// `SystemRandomNumberGenerator`, and swift-crypto's `SymmetricKey(size:)` and
/// `AES.GCM.Nonce()` on Linux, which draw from it, make one system call per eight bytes:
/// about ten per registration (docs/benchmarks.md).
public enum SecureRandom {
    public static func fill(_ buffer: UnsafeMutableRawBufferPointer) {
        var filled = 0
        while filled < buffer.count {
            let chunk = min(buffer.count - filled, 256)
            // Fails only without a usable CSPRNG, where `SystemRandomNumberGenerator` traps too.
            precondition(getentropy(buffer.baseAddress! + filled, chunk) == 0, "getentropy failed: errno \(errno)")
            filled += chunk
        }
    }

    public static func bytes(_ count: Int) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            fill(UnsafeMutableRawBufferPointer(buffer))
            initialized = count
        }
    }
}
