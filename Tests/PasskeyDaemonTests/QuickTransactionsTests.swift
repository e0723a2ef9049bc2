import CTAPHID
import PasskeydTestSupport
import Testing

@testable import PasskeyDaemon

/// `CTAPHIDServer.Configuration.quickTransactionsOnLoop` (`PASSKEYD_SPEED_OFF=executor` in
/// passkeyd): on, a quick transaction (getInfo) runs on its connection's event loop; off, on the
/// pool, and the answers are the same.
@Suite(.timeLimit(.minutes(1))) struct QuickTransactionsTests {
    @Test(arguments: [true, false]) func aQuickTransactionRunsOnTheLoopOnlyWhenTheSwitchIsOn(onLoop: Bool) async throws
    {
        let daemon = try await TestDaemon.start(presence: .auto, quickTransactionsOnLoop: onLoop)
        try await InProcessDaemon.with(daemon.daemon) { _ in
            try await HIDTestClient.with(path: daemon.path) { client in
                let channel = try await client.initialize()
                for _ in 0..<3 {
                    let reply = try await client.transact(
                        CTAPHIDMessage(channel: channel, command: .cbor, payload: [0x04]))
                    #expect(reply.command == .cbor && reply.payload == [0x00, 0xA0])
                }
                let echo = try await client.transact(
                    CTAPHIDMessage(channel: channel, command: .cbor, payload: [0x20, 9]))
                #expect(echo.payload == [0x00, 0x20, 9])
            }
        }
        // Three getInfo on the loop or not; the echo (not a quick command) always on the pool.
        #expect(await daemon.handler.ranOnEventLoop == [onLoop, onLoop, onLoop, false])
    }
}
