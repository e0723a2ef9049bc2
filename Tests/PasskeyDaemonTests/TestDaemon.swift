import Authenticator
import Foundation
import PasskeyDaemon
import PasskeydTestSupport

/// The shared in-process fixture with a `FakeHandler` behind a presence prompt.
struct TestDaemon {
    let daemon: InProcessDaemon
    let handler: FakeHandler
    var server: CTAPHIDServer { daemon.server }
    var broker: PromptBroker { daemon.broker }
    var path: String { daemon.socketPath }

    static func freshSocketPath() -> String {
        TemporaryFolder.freshSocketPath()
    }

    static func start(
        path: String = freshSocketPath(), presence: PresenceMode = .prompt, allowedPeerUID: uid_t = getuid(),
        timing: CTAPHIDServer.Timing = .init(), busyPoll: Duration = CTAPHIDServer.Configuration.defaultBusyPoll,
        quickTransactionsOnLoop: Bool = true, acceptThread: Bool = true
    ) async throws -> TestDaemon {
        let broker = PromptBroker()
        let handler = FakeHandler(presence: DaemonUserPresence(mode: presence, broker: broker))
        let daemon = try await InProcessDaemon.start(
            handler: handler, broker: broker, socketPath: path, timing: timing, allowedPeerUID: allowedPeerUID,
            busyPoll: busyPoll,
            quickTransactionsOnLoop: quickTransactionsOnLoop, acceptThread: acceptThread)
        return TestDaemon(daemon: daemon, handler: handler)
    }

    func stop() async {
        await daemon.stop()
    }
}

/// Runs `body` against a fresh daemon and stops it afterwards, even on failure.
func withDaemon(
    presence: PresenceMode = .prompt, timing: CTAPHIDServer.Timing = .init(), _ body: (TestDaemon) async throws -> Void
) async throws {
    let daemon = try await TestDaemon.start(presence: presence, timing: timing)
    try await InProcessDaemon.with(daemon.daemon) { _ in try await body(daemon) }
}
