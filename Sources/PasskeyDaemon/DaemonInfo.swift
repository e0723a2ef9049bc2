import Foundation
import PasskeydLocal

/// What the daemon says about itself: the INIT response's device version
/// (CTAP 2.1 §11.2.9.1.3) and the vendor STATUS reply.
public struct DaemonInfo: Sendable {
    public static let majorVersion = PasskeydVersion.major
    public static let minorVersion = PasskeydVersion.minor
    public static let buildVersion = PasskeydVersion.build
    /// The same version as the INIT response's three bytes, as `--version` prints it.
    public static let currentVersion = PasskeydVersion.text

    public let pid: Int32
    public let socketPath: String
    public let startedAt: Date

    init(socketPath: String) {
        pid = getpid()
        self.socketPath = socketPath
        startedAt = Date()
    }
}
