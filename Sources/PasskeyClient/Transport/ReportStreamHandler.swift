import NIOCore

/// Cuts the socket's byte stream into 64-byte CTAPHID reports and hands them to an
/// async stream, all the whole reports of one read in one event (a reply of several
/// reports usually arrives in one read: one wake-up for the reader, not one per report);
/// the end of the connection ends the stream.
final class ReportStreamHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    enum Event: Sendable {
        /// Whole reports back to back: a multiple of 64 bytes, never empty.
        case reports([UInt8])
        /// A periodic wake-up so a reader can notice a silent device.
        case tick
    }

    private let continuation: AsyncStream<Event>.Continuation
    private var pending: [UInt8] = []

    init(continuation: AsyncStream<Event>.Continuation) {
        self.continuation = continuation
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = unwrapInboundIn(data)
        pending.append(contentsOf: buffer.readableBytesView)
        let whole = pending.count - pending.count % 64
        guard whole > 0 else { return }
        if whole == pending.count {
            continuation.yield(.reports(pending))
            pending = []
        } else {
            continuation.yield(.reports(Array(pending[..<whole])))
            pending.removeFirst(whole)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        continuation.finish()
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}
