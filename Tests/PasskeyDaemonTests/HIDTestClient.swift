import CTAP
import CTAPHID
import Foundation
import Glibc
import NIOCore
import NIOPosix
import PasskeydLocal
import Synchronization

/// A tiny host for the tests: raw 64-byte reports over the Unix socket.
final class HIDTestClient: HIDHost {
    enum ClientError: Error { case closed }

    private var iterator: NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator
    private let outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>
    private var pending: [UInt8] = []
    /// Set when the watchdog, not the daemon, closed the connection.
    private let watchdogFired: Watchdog

    /// Whether the 20 s watchdog has closed the connection.
    final class Watchdog: Sendable {
        let fired = Atomic<Bool>(false)
    }

    private init(
        inbound: NIOAsyncChannelInboundStream<ByteBuffer>, outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>,
        watchdog: Watchdog
    ) {
        iterator = inbound.makeAsyncIterator()
        self.outbound = outbound
        watchdogFired = watchdog
    }

    /// Connects, runs `body`, closes. A watchdog closes the connection after
    /// 20 s so a missing answer fails the test instead of hanging it.
    ///
    /// The socket is made here, close-on-exec, and handed to NIO, which opens its own without:
    /// a child process another test starts meanwhile would otherwise keep the connection open
    /// after this client closes it, and the daemon would see its end only when that child exits.
    static func with<T: Sendable>(
        path: String, group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        _ body: (HIDTestClient) async throws -> T
    ) async throws -> T {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw ClientError.closed }
        guard let address = UnixSocketAddress(path: path), address.connect(descriptor) else {
            close(descriptor)
            throw ClientError.closed
        }
        let channel = try await ClientBootstrap(group: group)
            .withConnectedSocket(descriptor) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
        let flag = Watchdog()
        let watchdog = Task {
            try await Task.sleep(for: .seconds(20))
            flag.fired.store(true, ordering: .sequentiallyConsistent)
            try await channel.channel.close()
        }
        defer { watchdog.cancel() }
        return try await channel.executeThenClose { inbound, outbound in
            try await body(HIDTestClient(inbound: inbound, outbound: outbound, watchdog: flag))
        }
    }

    func send(raw bytes: [UInt8]) async throws {
        try await outbound.write(ByteBuffer(bytes: bytes))
    }

    func readReport() async throws -> CTAPHIDPacket {
        while pending.count < 64 {
            guard let buffer = try await iterator.next() else { throw ClientError.closed }
            pending += buffer.readableBytesView
        }
        defer { pending.removeFirst(64) }
        return try CTAPHIDPacket(report: pending[0..<64])
    }

    /// True when the daemon closed the connection without sending a single report;
    /// false as soon as any report arrives, or when the watchdog had to close it.
    func isClosedByPeer() async -> Bool {
        do {
            _ = try await readReport()
            return false
        } catch {
            return !watchdogFired.fired.load(ordering: .sequentiallyConsistent)
        }
    }
}
