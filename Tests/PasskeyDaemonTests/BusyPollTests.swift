import CTAP
import CTAPHID
import Glibc
import NIOCore
import NIOPosix
import PasskeydTestSupport
import Testing

@testable import PasskeyDaemon

/// Busy polling (`--busy-poll`, `BusyPoll`) keeps a connection's loop polling after each
/// answer. Here the budget is far longer than the test, so the loops poll throughout: the
/// daemon's timers, its other connections and its answers from other threads must go on.
@Suite struct BusyPollTests {
    static let budget: Duration = .seconds(60)

    @Test(.timeLimit(.minutes(1))) func keepalivesOtherConnectionsAndPoolAnswersGoOnWhileTheLoopsPoll() async throws {
        let daemon = try await TestDaemon.start(presence: .prompt, busyPoll: Self.budget)
        // The test's own clients on loops of their own: polling watches only the daemon's connections.
        let clients = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        defer { Task { try? await clients.shutdownGracefully() } }
        try await InProcessDaemon.with(daemon.daemon) { _ in
            try await HIDTestClient.with(path: daemon.path, group: clients) { waiting in
                try await HIDTestClient.with(path: daemon.path, group: clients) { other in
                    let channel = try await waiting.initialize()
                    let control = try await other.initialize()
                    // getInfo is answered on the loop (which then polls again), the echo on the pool.
                    for round in 0..<20 {
                        let info = try await other.transact(
                            CTAPHIDMessage(channel: control, command: .cbor, payload: [0x04]))
                        #expect(info.payload == [0x00, 0xA0])
                        let echo = try await other.transact(
                            CTAPHIDMessage(channel: control, command: .cbor, payload: [0x7F, UInt8(round)]))
                        #expect(echo.payload == [0x00, 0x7F, UInt8(round)])
                    }
                    // A registration waits for a touch; its keepalives come from a timer, every
                    // 75 ms, while the loops poll.
                    try await waiting.send(CTAPHIDMessage(channel: channel, command: .cbor, payload: [0x01]))
                    try await waiting.awaitKeepalive(.userPresenceNeeded, channel: channel)
                    try await waiting.awaitKeepalive(.userPresenceNeeded, channel: channel)
                    let status = try await other.transact(
                        CTAPHIDMessage(channel: control, command: VendorCommand.status.command))
                    let id = try #require(try DaemonStatus(bytes: status.payload).promptID)
                    let idBytes = (0..<8).reversed().map { UInt8(truncatingIfNeeded: id >> ($0 * 8)) }
                    let answer = try await other.transact(
                        CTAPHIDMessage(
                            channel: control, command: VendorCommand.presence.command, payload: [1] + idBytes))
                    #expect(answer.payload == [1])
                    // The registration's answer, once the touch came from the other connection.
                    let reply = try await waiting.readReply(channel: channel)
                    #expect(reply.command == .cbor && reply.payload == [CTAPStatus.success.rawValue])
                }
            }
        }
    }

    /// Queued work runs between the slices of polling (were one slice to hold the loop for
    /// the budget, the test's time limit would end it), data on a watched connection ends
    /// the polling, and past its budget the loop stops polling by itself.
    @Test(.timeLimit(.minutes(1))) func aPollingLoopRunsQueuedWorkAndStopsForDataOrAtItsBudget() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let loop = group.next()
        var ends: [Int32] = [-1, -1]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &ends) == 0)
        let (watched, peer) = (ends[0], ends[1])
        let long = try #require(BusyPoll.forEachLoop(of: group, budget: Self.budget)[ObjectIdentifier(loop)])
        try await loop.submit {
            long.watch(watched)
            long.answered()
        }.get()
        #expect(try await loop.submit { long.isPolling }.get())
        #expect(try await loop.scheduleTask(in: .milliseconds(5)) { "timer" }.futureResult.get() == "timer")
        #expect(try await loop.submit { long.isPolling }.get())
        var byte: UInt8 = 1
        #expect(write(peer, &byte, 1) == 1)
        while try await loop.submit({ long.isPolling }).get() { try await Task.sleep(for: .milliseconds(1)) }
        try await loop.submit { long.unwatch(watched) }.get()

        let short = try #require(BusyPoll.forEachLoop(of: group, budget: .milliseconds(1))[ObjectIdentifier(loop)])
        _ = read(watched, &byte, 1)
        try await loop.submit {
            short.watch(watched)
            short.answered()
        }.get()
        while try await loop.submit({ short.isPolling }).get() { try await Task.sleep(for: .milliseconds(1)) }
        // Nothing to watch, nothing to poll.
        try await loop.submit {
            short.unwatch(watched)
            short.answered()
        }.get()
        #expect(try await loop.submit { short.isPolling }.get() == false)
        close(watched)
        close(peer)
        try await group.shutdownGracefully()
    }
}
