import Foundation

/// What the daemon says about itself: the INIT response's device version
/// (CTAP 2.1 §11.2.9.1.3) and the vendor STATUS reply.
public struct DaemonInfo: Sendable {
    public static let majorVersion: UInt8 = 0
    public static let minorVersion: UInt8 = 1
    public static let buildVersion: UInt8 = 0
    /// The same version as the INIT response's three bytes, as `--version` prints it.
    public static let currentVersion = "\(majorVersion).\(minorVersion).\(buildVersion)"

    public let pid: Int32
    public let socketPath: String
    public let startedAt: Date

    init(socketPath: String) {
        pid = getpid()
        self.socketPath = socketPath
        startedAt = Date()
    }
}
