import CTAP
import Foundation
import Logging
import PasskeyDaemon

/// A `CTAPHIDServer` in the test process, with the caller's handler, on a temporary socket.
public struct InProcessDaemon: Sendable {
    public let server: CTAPHIDServer
    public let broker: PromptBroker
    public var socketPath: String { server.socketPath }

    /// Binds the socket (by default `ctaphid.sock` in a fresh folder the server creates)
    /// and returns once it accepts connections.
    public static func start(
        handler: any CTAP2MessageHandler, broker: PromptBroker, socketPath: String = TemporaryFolder.freshSocketPath(),
        timing: CTAPHIDServer.Timing = .init(), allowedPeerUID: uid_t = getuid(),
        busyPoll: Duration = CTAPHIDServer.Configuration.defaultBusyPoll, quickTransactionsOnLoop: Bool = true,
        acceptThread: Bool = true,
        logger: Logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
    ) async throws -> InProcessDaemon {
        let server = try await CTAPHIDServer.start(
            configuration: .init(
                socketPath: socketPath, timing: timing, allowedPeerUID: allowedPeerUID, busyPoll: busyPoll,
                quickTransactionsOnLoop: quickTransactionsOnLoop, acceptThread: acceptThread),
            handler: handler, broker: broker, logger: logger)
        return InProcessDaemon(server: server, broker: broker)
    }

    /// Stops the server and removes the socket's folder.
    public func stop() async {
        await server.stop()
        try? FileManager.default.removeItem(atPath: (socketPath as NSString).deletingLastPathComponent)
    }

    /// Runs `body` against `daemon` and stops it afterwards, whether `body` returns or throws.
    public static func with(_ daemon: InProcessDaemon, _ body: (InProcessDaemon) async throws -> Void) async throws {
        do {
            try await body(daemon)
            await daemon.stop()
        } catch {
            await daemon.stop()
            throw error
        }
    }
}
