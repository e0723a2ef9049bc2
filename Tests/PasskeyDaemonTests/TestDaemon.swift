import Authenticator
import Foundation
@testable import PasskeyDaemon

/// A server on a fresh temporary socket with a `FakeHandler` behind a presence prompt.
struct TestDaemon {
    let server: CTAPHIDServer
    let handler: FakeHandler
    let broker: PromptBroker
    var path: String { server.socketPath }

    static func freshSocketPath() -> String {
        "/tmp/pkd-test-\(UInt32.random(in: 0...UInt32.max))/ctaphid.sock"
    }

    static func start(
        path: String = freshSocketPath(), presence: PresenceMode = .prompt, allowedPeerUID: uid_t = getuid(),
        timing: CTAPHIDServer.Timing = .init()
    ) async throws -> TestDaemon {
        let broker = PromptBroker()
        let handler = FakeHandler(presence: DaemonUserPresence(mode: presence, broker: broker))
        let server = try await CTAPHIDServer.start(
            configuration: .init(socketPath: path, timing: timing, allowedPeerUID: allowedPeerUID), handler: handler, broker: broker)
        return TestDaemon(server: server, handler: handler, broker: broker)
    }

    func stop() async {
        await server.stop()
        try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent)
    }
}

/// Runs `body` against a fresh daemon and stops it afterwards, even on failure.
func withDaemon(
    presence: PresenceMode = .prompt, timing: CTAPHIDServer.Timing = .init(), _ body: (TestDaemon) async throws -> Void
) async throws {
    let daemon = try await TestDaemon.start(presence: presence, timing: timing)
    do {
        try await body(daemon)
    } catch {
        await daemon.stop()
        throw error
    }
    await daemon.stop()
}
