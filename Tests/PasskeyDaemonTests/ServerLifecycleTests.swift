import CTAP
import CTAPHID
import Foundation
import PasskeydTestSupport
import Testing

@testable import PasskeyDaemon

/// The socket file: permissions, peers of another uid, stale sockets, one daemon per path.
/// `acceptThread`: the same on passkeyd's accept thread and on NIO's server channel
/// (`PASSKEYD_SPEED_OFF=acceptthread`): turning the speed mechanism off changes no security.
@Suite struct ServerLifecycleTests {
    @Test(arguments: [true, false]) func socketIs0600InA0700FolderAndIsRemovedOnStop(acceptThread: Bool) async throws {
        let daemon = try await TestDaemon.start(acceptThread: acceptThread)
        let folder = (daemon.path as NSString).deletingLastPathComponent
        let socketMode = try FileManager.default.attributesOfItem(atPath: daemon.path)[.posixPermissions] as? Int
        let folderMode = try FileManager.default.attributesOfItem(atPath: folder)[.posixPermissions] as? Int
        #expect(socketMode == 0o600)
        #expect(folderMode == 0o700)
        await daemon.server.stop()
        #expect(!FileManager.default.fileExists(atPath: daemon.path))
        try? FileManager.default.removeItem(atPath: folder)
    }

    @Test(arguments: [true, false]) func aPeerOfAnotherUIDIsClosedUnanswered(acceptThread: Bool) async throws {
        let daemon = try await TestDaemon.start(allowedPeerUID: getuid() &+ 1, acceptThread: acceptThread)
        try await HIDTestClient.with(path: daemon.path) { client in
            try? await client.send(
                CTAPHIDMessage(
                    channel: CTAPHIDChannel.broadcast, command: .`init`, payload: [UInt8](repeating: 1, count: 8)))
            #expect(await client.isClosedByPeer())
        }
        await daemon.stop()
    }

    @Test(arguments: [true, false]) func aStaleSocketFileIsReplaced(acceptThread: Bool) async throws {
        let path = TestDaemon.freshSocketPath()
        let folder = (path as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(
            atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try HandMadeSocket.stale(at: path)
        #expect(SocketFile(path: path).probe() == .stale)

        let daemon = try await TestDaemon.start(path: path, acceptThread: acceptThread)
        try await HIDTestClient.with(path: path) { client in
            let channel = try await client.initialize()
            #expect(CTAPHIDChannel.isAllocatable(channel))
        }
        await daemon.stop()
    }

    @Test func aSecondDaemonOnTheSamePathIsRefused() async throws {
        let daemon = try await TestDaemon.start()
        await #expect(throws: DaemonError.alreadyRunning(socketPath: daemon.path)) {
            _ = try await TestDaemon.start(path: daemon.path)
        }
        // The first one still answers.
        try await HIDTestClient.with(path: daemon.path) { client in
            _ = try await client.initialize()
        }
        await daemon.stop()
    }

    @Test func aFileThatIsNotASocketIsNeverReplaced() async throws {
        let path = TestDaemon.freshSocketPath()
        let folder = (path as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(
            atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        _ = FileManager.default.createFile(atPath: path, contents: Data("keep me".utf8))
        await #expect(throws: DaemonError.notASocket(path: path)) {
            _ = try await TestDaemon.start(path: path)
        }
        #expect(FileManager.default.contents(atPath: path) == Data("keep me".utf8))
        try? FileManager.default.removeItem(atPath: folder)
    }

    @Test func aSocketFolderOpenToOthersIsRefused() async throws {
        let path = TestDaemon.freshSocketPath()
        let folder = (path as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: folder)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        await #expect(throws: DaemonError.unsafeSocketDirectory(path: folder)) {
            _ = try await TestDaemon.start(path: path)
        }
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test(arguments: [0o770, 0o722, 0o702])
    func aSocketFolderOthersCanWriteIsRefused(mode: Int) async throws {
        let path = TestDaemon.freshSocketPath()
        let folder = (path as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: folder)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        await #expect(throws: DaemonError.unsafeSocketDirectory(path: folder)) {
            _ = try await TestDaemon.start(path: path)
        }
    }

    @Test func aSocketFolderOfOursOthersMayOnlyReadIsAccepted() async throws {
        let path = TestDaemon.freshSocketPath()
        let folder = (path as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder)
        let daemon = try await TestDaemon.start(path: path)
        #expect(FileManager.default.fileExists(atPath: path))
        await daemon.stop()
    }

    @Test func aSymlinkedSocketFolderIsRefused() async throws {
        let target = "/tmp/pkd-test-target-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(
            atPath: target, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let path = TestDaemon.freshSocketPath()
        let folder = (path as NSString).deletingLastPathComponent
        try FileManager.default.createSymbolicLink(atPath: folder, withDestinationPath: target)
        defer {
            try? FileManager.default.removeItem(atPath: folder)
            try? FileManager.default.removeItem(atPath: target)
        }
        await #expect(throws: DaemonError.unsafeSocketDirectory(path: folder)) {
            _ = try await TestDaemon.start(path: path)
        }
        #expect(!FileManager.default.fileExists(atPath: target + "/ctaphid.sock"))
    }
}
