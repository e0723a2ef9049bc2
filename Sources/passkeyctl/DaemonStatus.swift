import CBOR
import CTAP

/// The STATUS vendor command's reply, shared with the daemon that encodes it.
typealias DaemonStatus = CTAP.DaemonStatus

extension CTAP.DaemonStatus {
    /// Decodes the STATUS reply; nil when the bytes are not the map docs/vendor-commands.md describes.
    init?(_ bytes: [UInt8]) {
        guard let value = try? CBORDecoder.decode(bytes), let status = try? Self(cbor: value) else { return nil }
        self = status
    }
}
