import NIOCore

/// Cuts the socket's byte stream into 64-byte CTAPHID reports and hands them to an
/// async stream; the end of the connection ends the stream.
final class ReportStreamHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    enum Event: Sendable {
        case report([UInt8])
        /// A periodic wake-up so a reader can notice a silent device.
        case tick
    }

    private let continuation: AsyncStream<Event>.Continuation
    private var pending: [UInt8] = []

    init(continuation: AsyncStream<Event>.Continuation) {
        self.continuation = continuation
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var buffer = unwrapInboundIn(data)
        pending.append(contentsOf: buffer.readBytes(length: buffer.readableBytes) ?? [])
        while pending.count >= 64 {
            continuation.yield(.report(Array(pending.prefix(64))))
            pending.removeFirst(64)
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
