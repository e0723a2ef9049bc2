import CTAP
import Foundation
import PasskeydTestSupport
import Testing

/// SIGTERM and SIGINT end the daemon cleanly: exit 0, socket and pid file removed, and a
/// keystore whose every write is in the main database file, none left in the `-wal`.
@Suite struct ShutdownTests {
    @Test(arguments: [SIGTERM, SIGINT])
    func aSignalLeavesTheKeystoreComplete(signal: Int32) async throws {
        let folder = try TemporaryFolder("pkd-shutdown")
        defer { folder.remove() }
        let daemon = try await PasskeydProcess.start(["--uv", "off"], in: folder)
        var registered: Set<[UInt8]> = []
        do {
            for user in ["alice", "bob", "carol"] {
                registered.insert(try await daemon.register(rp: "example.com", user: user))
            }
        } catch {
            await daemon.terminate()
            throw error
        }

        #expect(await daemon.terminate(signal) == 0)
        #expect(!FileManager.default.fileExists(atPath: daemon.socket))
        #expect(!FileManager.default.fileExists(atPath: daemon.pidFile))

        // Only what is in the main database file and the key file: were anything left in the
        // write-ahead log, a copy without it would miss credentials.
        let copy = try TemporaryFolder("pkd-shutdown-copy")
        defer { copy.remove() }
        try FileManager.default.createDirectory(
            atPath: copy.appending("data"), withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        for name in ["keystore.sqlite", "keystore.key"] {
            try FileManager.default.copyItem(
                atPath: daemon.dataDirectory + "/" + name, toPath: copy.appending("data/" + name))
        }
        let wal =
            (try? FileManager.default.attributesOfItem(atPath: daemon.dataDirectory + "/keystore.sqlite-wal")[.size]
                as? Int) ?? 0
        #expect(wal == 0, "the write-ahead log was checkpointed into the database")

        try await PasskeydProcess.with(["--uv", "off"], in: copy) { reopened in
            let found = try await reopened.discoverableCredentials(rp: "example.com")
            #expect(found == registered)
        }
    }
}
