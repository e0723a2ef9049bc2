import Foundation

/// A fresh folder under /tmp, mode 0700, for one test's socket and data. Under /tmp rather
/// than `$TMPDIR` so a socket path inside it stays far below the 107-byte `sun_path` limit.
public struct TemporaryFolder: Sendable {
    public let path: String

    /// Creates `/tmp/<prefix>-<random>`.
    public init(_ prefix: String) throws {
        path = Self.freshPath(prefix)
        guard mkdir(path, 0o700) == 0 else {
            throw FixtureError("cannot create \(path): \(String(cString: strerror(errno)))")
        }
    }

    /// A path under /tmp that does not exist yet; nothing is created.
    public static func freshPath(_ prefix: String) -> String {
        "/tmp/\(prefix)-\(UInt32.random(in: 0...UInt32.max))"
    }

    /// `ctaphid.sock` inside a folder that does not exist yet, for tests that create
    /// (or deliberately mis-create) the folder themselves, or let the server do it.
    public static func freshSocketPath(_ prefix: String = "pkd-test") -> String {
        freshPath(prefix) + "/ctaphid.sock"
    }

    public var url: URL { URL(fileURLWithPath: path, isDirectory: true) }

    public func appending(_ name: String) -> String {
        path + "/" + name
    }

    /// Removes the folder and everything in it.
    public func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }
}
