import Foundation
import Synchronization

/// Native messaging's framing (Chrome's "Native messaging" and MDN's "Native messaging"
/// pages, "Native messaging protocol"): each message is a 32-bit length in the machine's
/// native byte order, then that many bytes of UTF-8 JSON, on the host's standard input
/// (from the browser) and standard output (to it).
enum NativeMessaging {
    /// The largest message the host accepts from the extension. Browsers allow more (Chrome
    /// 64 MiB), but no request of this protocol comes near it (protocol: "1 MiB in").
    static let inboundLimit = 1 << 20
    /// The largest message a browser accepts from a host (both documents: 1 MB).
    static let outboundLimit = 1 << 20

    /// What one read of the stream yields.
    enum Frame: Equatable {
        case message([UInt8])
        /// The stream ended between two messages: the browser closed the port.
        case end
        /// The stream ended inside a message: its length or its body was cut short.
        case truncated(expected: Int, got: Int)
        /// A message over `inboundLimit`: its body was read and discarded, unparsed, so the
        /// stream goes on with the next message (one tab's oversized message must not end
        /// every other tab's pending request).
        case oversized(Int)

        /// Whether more frames can follow: after a message, and after an oversized one skipped.
        var streamGoesOn: Bool {
            switch self {
            case .message, .oversized: return true
            case .end, .truncated: return false
            }
        }
    }

    /// Reads framed messages from a file descriptor with blocking reads (one thread of its own).
    struct Reader {
        let descriptor: Int32

        func next() -> Frame {
            let prefix = read(count: 4)
            if prefix.isEmpty { return .end }
            guard prefix.count == 4 else { return .truncated(expected: 4, got: prefix.count) }
            let length = Int(prefix.withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) })
            guard length <= NativeMessaging.inboundLimit else {
                let skipped = skip(count: length)
                guard skipped == length else { return .truncated(expected: length, got: skipped) }
                return .oversized(length)
            }
            let body = read(count: length)
            guard body.count == length else { return .truncated(expected: length, got: body.count) }
            return .message(body)
        }

        /// Reads and drops `count` bytes in pieces, never holding more than one piece; fewer only
        /// at the end of the stream.
        private func skip(count: Int) -> Int {
            var skipped = 0
            while skipped < count {
                let got = read(count: min(64 << 10, count - skipped)).count
                skipped += got
                if got == 0 { break }
            }
            return skipped
        }

        /// Up to `count` bytes: fewer only at the end of the stream.
        private func read(count: Int) -> [UInt8] {
            var bytes = [UInt8](repeating: 0, count: count)
            var filled = 0
            while filled < count {
                let got = bytes.withUnsafeMutableBytes {
                    Glibc.read(descriptor, $0.baseAddress! + filled, count - filled)
                }
                if got > 0 {
                    filled += got
                } else if got < 0, errno == EINTR {
                    continue
                } else {
                    break
                }
            }
            return Array(bytes[..<filled])
        }
    }

    /// Writes framed messages to a file descriptor; messages from concurrent ceremonies never interleave.
    final class Writer: Sendable {
        private let descriptor: Int32
        private let lock = Mutex<Void>(())

        init(descriptor: Int32) {
            self.descriptor = descriptor
        }

        /// Writes one message; false when it is over the browser's limit (nothing is written)
        /// or the browser is gone.
        @discardableResult
        func write(_ body: [UInt8]) -> Bool {
            guard body.count <= NativeMessaging.outboundLimit else { return false }
            var frame = withUnsafeBytes(of: UInt32(body.count)) { Array($0) }
            frame += body
            return lock.withLock { _ in
                var sent = 0
                while sent < frame.count {
                    let wrote = frame.withUnsafeBytes {
                        Glibc.write(descriptor, $0.baseAddress! + sent, frame.count - sent)
                    }
                    if wrote > 0 {
                        sent += wrote
                    } else if wrote < 0, errno == EINTR {
                        continue
                    } else {
                        return false
                    }
                }
                return true
            }
        }
    }
}
