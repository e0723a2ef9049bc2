import CTAPHID
import PasskeydTestSupport
import Testing

@testable import PasskeyDaemon

/// `CTAPHIDServer.Configuration.acceptThread` (`PASSKEYD_SPEED_OFF=acceptthread` in passkeyd):
/// connections accepted on passkeyd's own thread (`Acceptor`) or through NIO's server channel
/// (`ServerChannelAcceptor`) are served alike. The peer and socket-file checks on both paths
/// are in `ServerLifecycleTests` and `ServerActivationTests`.
@Suite(.timeLimit(.minutes(1))) struct AcceptPathTests {
    /// Two hosts at once, each with its own connection and channel: INIT, then CTAPHID_CBOR
    /// (getInfo, and a command the fake handler echoes) on each.
    @Test(arguments: [true, false]) func initAndCBORAreAnsweredOnEitherPath(acceptThread: Bool) async throws {
        let daemon = try await TestDaemon.start(presence: .auto, acceptThread: acceptThread)
        try await InProcessDaemon.with(daemon.daemon) { _ in
            try await HIDTestClient.with(path: daemon.path) { first in
                try await HIDTestClient.with(path: daemon.path) { second in
                    let channels = (try await first.initialize(), try await second.initialize())
                    #expect(channels.0 != channels.1)
                    for (client, channel) in [(first, channels.0), (second, channels.1)] {
                        let info = try await client.transact(
                            CTAPHIDMessage(channel: channel, command: .cbor, payload: [0x04]))
                        #expect(info.command == .cbor && info.payload == [0x00, 0xA0])
                        let echo = try await client.transact(
                            CTAPHIDMessage(channel: channel, command: .cbor, payload: [0x20, UInt8(channel & 0xFF)]))
                        #expect(echo.payload == [0x00, 0x20, UInt8(channel & 0xFF)])
                    }
                }
            }
        }
    }

    /// Stopping the server closes a connection still open, on either path.
    @Test(arguments: [true, false]) func stoppingClosesOpenConnections(acceptThread: Bool) async throws {
        let daemon = try await TestDaemon.start(presence: .auto, acceptThread: acceptThread)
        try await HIDTestClient.with(path: daemon.path) { client in
            _ = try await client.initialize()
            await daemon.stop()
            #expect(await client.isClosedByPeer())
        }
    }
}
