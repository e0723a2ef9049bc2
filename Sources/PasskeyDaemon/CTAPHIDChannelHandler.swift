import Logging
import NIOCore

/// The connection's bytes, handed from its event loop's read straight to `CTAPHIDConnection`,
/// whose executor is that loop: no async sequence, no job through the loop's queue.
final class CTAPHIDChannelHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private let connection: CTAPHIDConnection
    /// Told when the channel goes away, on the loop, before any later connection can reuse
    /// the descriptor (`BusyPoll.unwatch`).
    private let closed: () -> Void
    private let logger: Logger

    init(connection: CTAPHIDConnection, logger: Logger, closed: @escaping () -> Void) {
        self.connection = connection
        self.logger = logger
        self.closed = closed
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let bytes = unwrapInboundIn(data)
        // The loop's thread is the connection's executor (`CTAPHIDConnection.unownedExecutor`).
        connection.assumeIsolated { $0.receive(bytes.readableBytesView) }
    }

    func channelInactive(context: ChannelHandlerContext) {
        closed()
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        logger.debug("connection error", metadata: ["error": "\(error)"])
        context.close(promise: nil)
    }
}
