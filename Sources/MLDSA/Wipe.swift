#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Zeroing of secret buffers (issue 33, F4/F6): private-key material and signing's
/// intermediates are overwritten once used, so they do not linger in freed heap memory a core
/// file or a later allocation could expose. `explicit_bzero` (glibc) and `memset_s` (C11 Annex K,
/// Darwin) are the calls a compiler must not remove as dead stores, unlike a plain loop or memset.
enum Wipe {
    /// Overwrites the bytes in place with zeros.
    static func bytes(_ pointer: UnsafeMutableRawBufferPointer) {
        guard let base = pointer.baseAddress, pointer.count > 0 else { return }
        #if canImport(Glibc)
            explicit_bzero(base, pointer.count)
        #else
            _ = memset_s(base, pointer.count, 0, pointer.count)
        #endif
    }

    /// Zeroes the array's own storage. Only a uniquely referenced array is wiped in place (a
    /// shared one would be copied first), so callers wipe arrays they alone hold.
    static func array<Element: BitwiseCopyable>(_ array: inout [Element]) {
        array.withUnsafeMutableBytes { bytes($0) }
    }

    static func polynomials(_ vector: inout [Polynomial]) {
        for index in vector.indices { array(&vector[index].coefficients) }
    }
}
