import CBOR
import Foundation

/// The STATUS vendor command's reply (docs/vendor-commands.md): a CBOR map with text keys.
struct DaemonStatus: Sendable {
    var version: String
    var pid: Int
    var socket: String
    var startedAt: Date
    /// `presence`, `uv` or `none`.
    var pending: String

    init?(_ bytes: [UInt8]) {
        guard let value = try? CBORDecoder.decode(bytes), let map = value.mapValue,
              let version = map["version"]?.textValue, let pid = map["pid"]?.intValue,
              let socket = map["socket"]?.textValue, let started = map["startedAt"]?.intValue
        else { return nil }
        self.version = version
        self.pid = pid
        self.socket = socket
        startedAt = Date(timeIntervalSince1970: TimeInterval(started))
        pending = map["pending"]?.textValue ?? "none"
    }
}
