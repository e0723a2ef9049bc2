import Foundation

/// What the daemon says about itself: the INIT response's device version
/// (CTAP 2.1 §11.2.9.1.3) and the vendor STATUS reply.
public struct DaemonInfo: Sendable {
    public var version: String
    public var majorVersion: UInt8
    public var minorVersion: UInt8
    public var buildVersion: UInt8
    public var pid: Int32
    public var socketPath: String
    public var startedAt: Date

    public static let currentVersion = "0.1.0"

    public init(
        version: String = DaemonInfo.currentVersion, majorVersion: UInt8 = 0, minorVersion: UInt8 = 1,
        buildVersion: UInt8 = 0, pid: Int32 = getpid(), socketPath: String, startedAt: Date = Date()
    ) {
        self.version = version
        self.majorVersion = majorVersion
        self.minorVersion = minorVersion
        self.buildVersion = buildVersion
        self.pid = pid
        self.socketPath = socketPath
        self.startedAt = startedAt
    }
}
