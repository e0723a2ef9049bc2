import CTAPHID
import Foundation
import PasskeydTestSupport
import Testing

@testable import PasskeyDaemon

/// A listening socket handed over by a service manager (systemd socket activation): served
/// like a bound one, with the same folder and peer checks, and left in place at stop; on the
/// accept thread and on NIO's server channel alike (`acceptThread`).
@Suite struct ServerActivationTests {
    /// A socket bound and listening in a fresh folder of `mode`, as systemd's passkeyd.socket makes it.
    static func inherited(folderMode: mode_t = 0o700) throws -> (path: String, descriptor: Int32) {
        let path = TemporaryFolder.freshSocketPath("pkd-activated")
        let folder = (path as NSString).deletingLastPathComponent
        guard mkdir(folder, 0o700) == 0, chmod(folder, folderMode) == 0 else { throw FixtureError("mkdir \(folder)") }
        return (path, try HandMadeSocket.listening(at: path))
    }

    static func start(
        _ socket: (path: String, descriptor: Int32), allowedPeerUID: uid_t = getuid(), acceptThread: Bool = true
    ) async throws -> CTAPHIDServer {
        let broker = PromptBroker()
        return try await CTAPHIDServer.start(
            configuration: .init(
                socketPath: socket.path, allowedPeerUID: allowedPeerUID,
                listener: .inherited(descriptor: socket.descriptor), acceptThread: acceptThread),
            handler: FakeHandler(presence: DaemonUserPresence(mode: .auto, broker: broker)), broker: broker)
    }

    @Test(arguments: [true, false]) func anInheritedSocketIsServedAndLeftToItsManagerAtStop(acceptThread: Bool)
        async throws
    {
        let socket = try Self.inherited()
        defer { try? FileManager.default.removeItem(atPath: (socket.path as NSString).deletingLastPathComponent) }
        // The manager keeps its own copy, so the socket outlives this daemon and the next connection can start another.
        let managersCopy = fcntl(socket.descriptor, F_DUPFD_CLOEXEC, 0)
        defer { close(managersCopy) }
        let server = try await Self.start(socket, acceptThread: acceptThread)
        try await HIDTestClient.with(path: socket.path) { client in
            let channel = try await client.initialize()
            #expect(CTAPHIDChannel.isAllocatable(channel))
        }
        await server.stop()
        #expect(SocketProbe.isSocket(socket.path), "the socket file is the manager's; it stays")
        // Still listening through the manager's copy: a connection waits for the next daemon
        // (the interop suite starts that daemon, in a process of its own).
        #expect(SocketFile.accepts(socket.path))
    }

    @Test(arguments: [true, false]) func aPeerOfAnotherUIDIsClosedUnansweredOnAnInheritedSocket(acceptThread: Bool)
        async throws
    {
        let socket = try Self.inherited()
        defer { try? FileManager.default.removeItem(atPath: (socket.path as NSString).deletingLastPathComponent) }
        let server = try await Self.start(socket, allowedPeerUID: getuid() &+ 1, acceptThread: acceptThread)
        try await HIDTestClient.with(path: socket.path) { client in
            try? await client.send(
                CTAPHIDMessage(
                    channel: CTAPHIDChannel.broadcast, command: .`init`, payload: [UInt8](repeating: 1, count: 8)))
            #expect(await client.isClosedByPeer())
        }
        await server.stop()
    }

    @Test func anInheritedSocketInAFolderOthersCanWriteIsRefused() async throws {
        let socket = try Self.inherited(folderMode: 0o777)
        let folder = (socket.path as NSString).deletingLastPathComponent
        defer {
            close(socket.descriptor)
            try? FileManager.default.removeItem(atPath: folder)
        }
        await #expect(throws: DaemonError.unsafeSocketDirectory(path: folder)) { _ = try await Self.start(socket) }
    }
}
