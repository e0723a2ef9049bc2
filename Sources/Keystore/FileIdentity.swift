#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Which file a path names (device and inode): tells the file a connection has open from
/// whatever, if anything, now has its name.
struct FileIdentity: Sendable, Equatable {
    let device: UInt64
    let inode: UInt64

    /// The file `path` names now; nil when there is none.
    init?(_ path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
    }
}
