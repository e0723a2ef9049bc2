import Foundation
import PasskeydLocal
import Testing

/// The socket-folder rule the daemon keeps before binding and every client before speaking.
@Suite struct SocketFolderTests {
    func withFolder(mode: mode_t, _ body: (String) throws -> Void) throws {
        let base = NSTemporaryDirectory() + "socket-folder-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: base) }
        let folder = base + "/passkeyd"
        #expect(mkdir(folder, 0o700) == 0)
        #expect(chmod(folder, mode) == 0)
        try body(folder)
    }

    @Test func aPrivateFolderOfOursIsTrusted() throws {
        try withFolder(mode: 0o700) { folder in
            #expect(SocketFolder.verdict(forFolderOf: folder + "/ctaphid.sock") == .trusted)
            #expect(SocketFolder.refusal(forSocket: folder + "/ctaphid.sock") == nil)
        }
        try withFolder(mode: 0o755) { folder in
            #expect(
                SocketFolder.verdict(forFolderOf: folder + "/ctaphid.sock") == .trusted, "reading it gives nothing away"
            )
        }
    }

    @Test(arguments: [0o777, 0o770, 0o722, 0o702] as [mode_t])
    func aFolderOthersCanWriteIsRefused(mode: mode_t) throws {
        try withFolder(mode: mode) { folder in
            let socket = folder + "/ctaphid.sock"
            #expect(SocketFolder.verdict(forFolderOf: socket) == .writableByOthers(mode: UInt32(mode)))
            #expect(
                SocketFolder.refusal(forSocket: socket)
                    == "Refusing the socket at \(socket): its folder \(folder) can be written by other users (mode \(String(mode, radix: 8)))."
            )
        }
    }

    @Test func aSymlinkedFolderIsRefused() throws {
        try withFolder(mode: 0o700) { folder in
            let link = folder + "-link"
            #expect(symlink(folder, link) == 0)
            defer { unlink(link) }
            #expect(SocketFolder.verdict(forFolderOf: link + "/ctaphid.sock") == .notADirectory)
        }
    }

    @Test func aFolderOfAnotherUserIsRefusedNamingTheOwner() throws {
        try withFolder(mode: 0o700) { folder in
            let socket = folder + "/ctaphid.sock"
            let stranger = getuid() &+ 1
            #expect(SocketFolder.verdict(forFolderOf: socket, uid: stranger) == .ownedByAnother(uid: getuid()))
            #expect(
                SocketFolder.refusal(forSocket: socket, uid: stranger)?.contains(
                    "belongs to uid \(getuid()), not to you (uid \(stranger))") == true)
        }
    }

    @Test func aListenerOfAnotherUidIsRefused() {
        #expect(SocketFolder.refusal(forSocket: "/s", servedBy: getuid()) == nil)
        #expect(
            SocketFolder.refusal(forSocket: "/s", servedBy: getuid() &+ 1)?.contains("served by uid \(getuid() &+ 1)")
                == true)
        #expect(SocketFolder.refusal(forSocket: "/s", servedBy: nil) != nil, "unknown is not ours")
    }
}
