import Authenticator
import CTAP
import Crypto
import Foundation
import GRDB
import Testing

@testable import Keystore

/// Kill -9 during a burst of registrations: every save that returned is there and
/// usable afterwards, and the database opens without repair.
///
/// The parent test runs this test binary again, filtered to `burstWriterChild`, with
/// `PASSKEYD_KEYSTORE_BURST_DIR` set, and `PASSKEYD_SPEED_OFF` naming the speed mechanisms the
/// child's store runs without (`SpeedMechanisms`): the guarantee holds on every plain path. The child saves credentials as fast as it can and
/// appends each index to `acks` once `save` and the `durable()` after it have returned —
/// the moment the daemon would send its CTAP response. The parent SIGKILLs it mid-burst, then checks.
@Suite struct KeystoreCrashTests {
    static let burstDirectoryVariable = "PASSKEYD_KEYSTORE_BURST_DIR"
    // More than `RecordLog.entriesPerFold`: the kill comes after at least one fold.
    static let acknowledgementsBeforeKill = 1_500

    static func burstCredential(_ index: Int) -> CredentialSource {
        let seed = withUnsafeBytes(of: UInt64(index).bigEndian) { Array($0) }
        return CredentialSource(
            id: Array(SHA256.hash(data: Array("id".utf8) + seed).prefix(16)),
            rp: PublicKeyCredentialRpEntity(id: "rp\(index % 10).example", name: "RP \(index % 10)"),
            user: PublicKeyCredentialUserEntity(id: seed, name: "user\(index)", displayName: "User \(index)"),
            algorithm: index % 2 == 0 ? .es256 : .edDSA,
            privateKey: Array(SHA256.hash(data: Array("key".utf8) + seed)),
            signCount: 0, createdAt: Date(timeIntervalSince1970: 1_700_000_000 + Double(index)), credProtect: 1)
    }

    /// The child half; it does nothing unless spawned by `acknowledgedWritesSurviveSIGKILL`.
    @Test(.enabled(if: ProcessInfo.processInfo.environment[burstDirectoryVariable] != nil))
    func burstWriterChild() async throws {
        let directory = try #require(ProcessInfo.processInfo.environment[Self.burstDirectoryVariable])
        let store = try openStore(directory + "/store")
        // What the child read from PASSKEYD_SPEED_OFF, for the parent to check.
        try Data(store.off.description.utf8).write(to: URL(fileURLWithPath: directory + "/off"))
        let acks = open(directory + "/acks", O_WRONLY | O_CREAT | O_APPEND, 0o600)
        try #require(acks >= 0)
        for index in 0..<1_000_000 {
            try await store.save(Self.burstCredential(index))
            // The daemon answers a registration only once the flush covering its save is done.
            try await store.durable()
            let line = Array("\(index)\n".utf8)
            // One write(2) per line: what reached the file was acknowledged.
            #expect(line.withUnsafeBytes { write(acks, $0.baseAddress, $0.count) } == line.count)
        }
    }

    @Test(arguments: ["", "recordlog", "groupcommit"])
    func acknowledgedWritesSurviveSIGKILL(speedOff: String) async throws {
        let temp = TemporaryDirectory()
        defer { temp.remove() }
        // The store exists before the burst, as it would under a running daemon.
        try await openStore(temp.store).close()

        let child = Process()
        child.executableURL = URL(
            fileURLWithPath: try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
        child.arguments = ["--testing-library", "swift-testing", "--filter", "KeystoreCrashTests/burstWriterChild"]
        child.environment = ProcessInfo.processInfo.environment.merging(
            [Self.burstDirectoryVariable: temp.path, SpeedMechanisms.environmentVariable: speedOff]) { $1 }
        child.standardOutput = FileHandle.nullDevice
        child.standardError = FileHandle.nullDevice
        try child.run()

        // Wait for a good number of acknowledged saves (the deadline only guards against a hung child).
        let deadline = Date().addingTimeInterval(120)
        while acknowledged(temp).count < Self.acknowledgementsBeforeKill && child.isRunning && Date() < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        try #require(child.isRunning, "the burst writer stopped before it was killed")
        kill(child.processIdentifier, SIGKILL)
        child.waitUntilExit()
        #expect(child.terminationReason == .uncaughtSignal)
        #expect(
            FileManager.default.contents(atPath: temp.path + "/off").map { String(decoding: $0, as: UTF8.self) }
                == speedOff)

        let acked = acknowledged(temp)
        try #require(acked.count >= Self.acknowledgementsBeforeKill)
        let store = try openStore(temp.store)
        for index in acked {
            #expect(try await store.credential(id: Self.burstCredential(index).id) == Self.burstCredential(index))
        }
        let rp3 = try await store.credentials(rpID: "rp3.example")
        #expect(
            rp3.map(\.id) == acked.filter { $0 % 10 == 3 }.reversed().map { Self.burstCredential($0).id }
                || rp3.dropFirst().map(\.id)
                    == acked.filter { $0 % 10 == 3 }.reversed().map { Self.burstCredential($0).id }
        )
        // At most the one save in flight at the kill committed without being acknowledged.
        let stored = try await store.count()
        #expect(stored == acked.count || stored == acked.count + 1)
        // Still writable after the crash.
        try await store.save(Self.burstCredential(999_999))
        try await store.close()

        let raw = try DatabaseQueue(path: temp.database)
        #expect(try await raw.read { try String.fetchAll($0, sql: "PRAGMA integrity_check") } == ["ok"])
        try raw.close()
    }

    /// SIGKILL in the middle of a checkpoint (`wal_autocheckpoint`, inside a fold's commit):
    /// SQLite has copied some of the WAL's pages into the main file, page 1 first, whose
    /// header already counts the pages the file has not grown to yet; the WAL is whole.
    /// Wherever the kill came, the store opens with every credential.
    @Test func aStoreKilledAnywhereInACheckpointOpensWithEveryCredential() async throws {
        let temp = TemporaryDirectory()
        defer { temp.remove() }
        let store = try openStore(temp.store)
        // The fold commits the first `entriesPerFold` into the WAL: too few pages for a checkpoint.
        let saved = RecordLog.entriesPerFold + 8
        for index in 0..<saved { try await store.save(Self.burstCredential(index)) }
        try await store.durable()
        // What a kill now leaves: nothing is written between calls once they are durable.
        let files = try FileManager.default.contentsOfDirectory(atPath: temp.store).map { name in
            (name, try #require(FileManager.default.contents(atPath: temp.store + "/" + name)))
        }
        try await store.close()
        let wal = try #require(files.first { $0.0 == Keystore.databaseFileName + "-wal" }).1
        let writes = Self.checkpointWrites(Array(wal))
        try #require(writes.count > 100, "the fold's commit is not in the WAL")
        // The first pages (page 1 is the one whose count runs ahead of the file), then every 32nd,
        // and the last: every page is ~10 ms of opening, on a pool thread other tests need too.
        let kills = Set([0, 1, 2, 3, writes.count - 1, writes.count] + Array(stride(from: 0, to: writes.count, by: 32)))
        for landed in kills.sorted() {
            let killed = temp.path + "/killed-\(landed)"
            #expect(mkdir(killed, 0o700) == 0)
            for (name, contents) in files {
                var contents = Array(contents)
                if name == Keystore.databaseFileName {
                    for write in writes.prefix(landed) {
                        let offset = (write.page - 1) * write.bytes.count
                        if contents.count < offset + write.bytes.count {
                            contents += [UInt8](repeating: 0, count: offset + write.bytes.count - contents.count)
                        }
                        contents.replaceSubrange(offset..<offset + write.bytes.count, with: write.bytes)
                    }
                }
                #expect(
                    FileManager.default.createFile(
                        atPath: killed + "/" + name, contents: Data(contents), attributes: [.posixPermissions: 0o600]))
            }
            let reopened = try openStore(killed)
            #expect(try await reopened.count() == saved, "\(landed) of \(writes.count) pages checkpointed")
            #expect(
                try await reopened.credential(id: Self.burstCredential(saved - 1).id) == Self.burstCredential(saved - 1)
            )
            try await reopened.close()
        }
    }

    /// What a checkpoint of `wal` writes into the main file, in its order: the newest version
    /// of each page as of the WAL's last commit, by ascending page number. A frame is a
    /// 24-byte header (page number, the page count if it ends a commit, the WAL's salts) and the page.
    private static func checkpointWrites(_ wal: [UInt8]) -> [(page: Int, bytes: ArraySlice<UInt8>)] {
        func word(_ at: Int) -> Int { wal[at..<at + 4].reduce(0) { $0 << 8 | Int($1) } }
        guard wal.count >= 32 else { return [] }
        let pageSize = word(8)
        var pending: [Int: Int] = [:]
        var committed: [Int: Int] = [:]
        var frame = 32
        while frame + 24 + pageSize <= wal.count, word(frame + 8) == word(16), word(frame + 12) == word(20) {
            pending[word(frame)] = frame + 24
            if word(frame + 4) != 0 {
                committed.merge(pending) { $1 }
                pending = [:]
            }
            frame += 24 + pageSize
        }
        return committed.sorted { $0.key < $1.key }.map { ($0.key, wal[$0.value..<$0.value + pageSize]) }
    }

    /// The indices the child acknowledged, from complete lines only.
    private func acknowledged(_ temp: TemporaryDirectory) -> [Int] {
        guard let data = FileManager.default.contents(atPath: temp.path + "/acks"),
            let text = String(data: data, encoding: .utf8)
        else { return [] }
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        lines.removeLast()  // empty after the final newline, or an incomplete line
        return lines.compactMap { Int($0) }
    }
}
