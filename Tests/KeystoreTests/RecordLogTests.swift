import Authenticator
import CTAP
import Foundation
import GRDB
import Testing

@testable import Keystore

/// The record log: registrations made durable by a small write of their own, kept in order
/// with SQLite's commits, replayed after a crash, and never more than what was written.
@Suite struct RecordLogTests {
    static func row(_ tag: UInt8, sealed: Int = 40) -> CredentialRow {
        CredentialRow(
            credentialIDHash: Data(repeating: tag, count: 32), rpIDHash: Data(repeating: tag &+ 1, count: 32),
            userHandleHash: Data(repeating: tag &+ 2, count: 32),
            sealed: Data((0..<sealed).map { UInt8(truncatingIfNeeded: $0 &+ Int(tag)) }))
    }

    static func entry(_ sequence: UInt64, after previous: UInt64, _ tag: UInt8) -> RecordLogEntry {
        RecordLogEntry(sequence: sequence, previous: previous, row: row(tag, sealed: 20 + Int(tag)))
    }

    // MARK: The file's entries

    @Test func entriesReadBackUpToTheFirstTornDamagedOrAbsentOne() {
        let entries = [Self.entry(5, after: 4, 1), Self.entry(6, after: 5, 2), Self.entry(9, after: 8, 3)]
        let bytes = entries.flatMap(\.encoded)
        #expect(RecordLogEntry.entries(in: bytes) == entries)
        #expect(RecordLogEntry.entries(in: bytes + [UInt8](repeating: 0, count: 4096)) == entries, "zeros end the log")
        #expect(RecordLogEntry.entries(in: Array(bytes.dropLast())) == Array(entries.prefix(2)), "a torn last entry")
        for offset in [0, 4, 12, 20, 60, entries[0].size - 1] {
            var damaged = bytes
            damaged[entries[0].size + offset] ^= 0x40
            #expect(
                RecordLogEntry.entries(in: damaged) == Array(entries.prefix(1)),
                "a flipped bit at \(offset) of the second entry")
        }
        var huge = bytes
        huge[0] = 0xFF
        huge[3] = 0x7F
        #expect(RecordLogEntry.entries(in: huge).isEmpty, "a length past the end")
        #expect(RecordLogEntry.entries(in: []).isEmpty)
    }

    @Test func replayContinuesTheChainFromTheLastCommitAndStopsWhereItBreaks() {
        let a = Self.entry(5, after: 4, 1)
        let c = Self.entry(7, after: 6, 2)
        let d = Self.entry(8, after: 7, 3)
        // 6 was a commit into SQLite: C and D follow it.
        #expect(RecordLogEntry.replayable([a, c, d], after: 6) == [c, d], "A is in SQLite already")
        #expect(
            RecordLogEntry.replayable([a, c, d], after: 4) == [a], "the commit numbered 6 was lost: nothing after it")
        #expect(RecordLogEntry.replayable([a, c, d], after: 8).isEmpty)
        #expect(RecordLogEntry.replayable([a, c, d], after: 3).isEmpty, "a commit numbered 4 was lost")
        // Entries left from before the log started again are numbered below what SQLite applied.
        let stale = Self.entry(2, after: 1, 4)
        #expect(
            RecordLogEntry.replayable([Self.entry(11, after: 10, 5), stale, Self.entry(3, after: 2, 6)], after: 10)
                == [Self.entry(11, after: 10, 5)])
    }

    // MARK: A keystore's log

    /// The keystore's files as a crash would leave them now: copied while it is open (the
    /// store's connection keeps the WAL index in memory, so the copy's reader rebuilds it from
    /// the WAL, as after a crash).
    static func crashImage(of temp: TemporaryDirectory, into image: TemporaryDirectory, files: [String] = allFiles)
        throws
    {
        try? FileManager.default.createDirectory(
            atPath: image.store, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        for name in files {
            try? FileManager.default.removeItem(atPath: image.store + "/" + name)
            // A closed store has no WAL.
            guard let contents = FileManager.default.contents(atPath: temp.store + "/" + name) else { continue }
            #expect(
                FileManager.default.createFile(
                    atPath: image.store + "/" + name, contents: contents, attributes: [.posixPermissions: 0o600]))
        }
    }
    static let databaseFiles = [Keystore.databaseFileName, Keystore.databaseFileName + "-wal", Keystore.keyFileName]
    static let allFiles = databaseFiles + [RecordLog.fileName]

    static func credentials(_ count: Int, rp: String = "example.com") -> [CredentialSource] {
        (0..<count).map { makeCredential(rp: rp, userHandle: withUnsafeBytes(of: UInt32($0).bigEndian) { Array($0) }) }
    }

    /// An entry is in the file once the flush that makes it durable ended (its write may start
    /// when it is logged); a block written again for the entries after it keeps the ones before,
    /// across a fold too.
    @Test func entriesAreInTheFileOnceFlushedAndRewrittenBlocksKeepTheEarlierOnes() async throws {
        let temp = TemporaryDirectory()
        defer { temp.remove() }
        let store = try openStore(temp.store)
        let log = temp.store + "/" + RecordLog.fileName
        func logged() throws -> Int {
            let bytes = try #require(FileManager.default.contents(atPath: log)).map { $0 }
            return [0..<RecordLog.halfCapacity, RecordLog.halfCapacity..<RecordLog.capacity]
                .map { RecordLogEntry.entries(in: bytes, region: $0).count }.reduce(0, +)
        }
        var saved = 0
        // Past a fold, with flushes between that end inside a block and across blocks.
        for batch in [1, 2, 9, 30, RecordLog.entriesPerFold - 40, 5, 1, 12] {
            for credential in Self.credentials(batch, rp: "rp\(saved).example") { try await store.save(credential) }
            saved += batch
            try await store.durable()
            #expect(try logged() == saved, "after \(saved) registrations")
        }
        try await store.close()
    }

    /// What a write takes of the log (`takeWrites`): the runs with entries no write took yet,
    /// whole from their first block. A part-filled block written and flushed is not written again
    /// until an entry follows it, and then with the entries before; after a failure, all is.
    @Test func aWriteTakesOnlyRunsWithNewEntriesAndAfterAFailureAllAgain() throws {
        let temp = TemporaryDirectory()
        defer { temp.remove() }
        // Only the bookkeeping is looked at: the file is never written.
        var log = RecordLog(file: try Self.filledFile(in: temp, blocks: 0), last: 0)
        let entrySize = RecordLogEntry.size(of: Self.row(1))
        log.append(Self.row(1))
        let first = log.takeWrites()
        #expect(first.map(\.offset) == [0] && first.map(\.bytes.count) == [entrySize])
        #expect(log.takeWrites().isEmpty, "nothing logged since the last write was taken")
        log.append(Self.row(2))
        let second = log.takeWrites()
        #expect(
            second.map(\.offset) == [0] && second.map(\.bytes.count) == [2 * entrySize],
            "the block again, with the entry before")
        // Flushed: the run as the last write took it, with both entries.
        log.wrote(second)
        #expect(log.takeWrites().isEmpty, "the part-filled block is on disk, and no entry followed")
        // Entries up to the next block and past it: the part-filled block again, then the next one.
        let past = DurableFile.blockSize / entrySize
        for tag in 3...(past + 1) { log.append(Self.row(UInt8(tag))) }
        let third = log.takeWrites()
        #expect(third.map(\.offset) == [0] && third.map(\.bytes.count) == [(past + 1) * entrySize])
        log.wrote(third)
        let rest = (past + 1) * entrySize - DurableFile.blockSize
        #expect(log.takeWrites().isEmpty)
        log.append(Self.row(200))
        let fourth = log.takeWrites()
        #expect(
            fourth.map(\.offset) == [DurableFile.blockSize] && fourth.map(\.bytes.count) == [rest + entrySize],
            "the first block done, the second from its start")
        // Its flush failed: the next write takes it again.
        log.untake()
        #expect(log.takeWrites().map(\.bytes) == fourth.map(\.bytes))
    }

    /// A private file of `blocks` blocks of 0xEE (none: empty), to see what a block write changes.
    static func filledFile(in temp: TemporaryDirectory, blocks: Int) throws -> DurableFile {
        try FileManager.default.createDirectory(
            atPath: temp.store, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let path = temp.store + "/blocks"
        #expect(
            FileManager.default.createFile(
                atPath: path, contents: Data(repeating: 0xEE, count: blocks * DurableFile.blockSize),
                attributes: [.posixPermissions: 0o600]))
        return try DurableFile.privateFile(path)
    }

    /// A block write puts its bytes at a block's start and zeros to the end of its last block,
    /// and leaves the blocks around it as they were.
    @Test func aBlockWriteFillsItsLastBlockWithZerosAndLeavesTheRest() throws {
        let temp = TemporaryDirectory()
        defer { temp.remove() }
        let block = DurableFile.blockSize
        let file = try Self.filledFile(in: temp, blocks: 4)
        let bytes = (0..<(block + 100)).map { UInt8(truncatingIfNeeded: $0 % 251 + 1) }
        try file.writeBlocks(bytes, at: block)
        try file.flush().get()
        let read = try file.read(4 * block)
        #expect(read[..<block].allSatisfy { $0 == 0xEE }, "the block before")
        #expect(Array(read[block..<(2 * block + 100)]) == bytes)
        #expect(read[(2 * block + 100)..<(3 * block)].allSatisfy { $0 == 0 }, "the last block's tail")
        #expect(read[(3 * block)...].allSatisfy { $0 == 0xEE }, "the block after")
    }

    @Test func registrationsAcrossFoldsAreAllThereAfterACrashNewestFirst() async throws {
        let temp = TemporaryDirectory()
        let image = TemporaryDirectory()
        defer {
            temp.remove()
            image.remove()
        }
        let store = try openStore(temp.store)
        // Two folds and a part: some in SQLite's WAL, the rest only in the log.
        let saved = Self.credentials(2 * RecordLog.entriesPerFold + 10)
        for credential in saved {
            try await store.save(credential)
            try await store.durable()
        }
        try Self.crashImage(of: temp, into: image)
        let reopened = try openStore(image.store)
        #expect(try await reopened.count() == saved.count)
        #expect(try await reopened.credentials(rpID: "example.com") == saved.reversed())
        try await reopened.close()
        try await store.close()
    }

    @Test func aClosedStoreLeavesItsLogClearAndTheNextOpenHasNothingToReplay() async throws {
        let temp = TemporaryDirectory()
        defer { temp.remove() }
        let store = try openStore(temp.store)
        let saved = Self.credentials(5)
        for credential in saved { try await store.save(credential) }
        try await store.close()
        let log = temp.store + "/" + RecordLog.fileName
        let bytes = try #require(FileManager.default.contents(atPath: log))
        #expect(bytes.count == RecordLog.capacity && bytes.allSatisfy { $0 == 0 })
        let reopened = try openStore(temp.store)
        #expect(try await reopened.credentials(rpID: "example.com") == saved.reversed())
        // The numbers go on from the last commit: a registration now, then a crash, replays.
        let more = makeCredential(userHandle: [0xEE])
        try await reopened.save(more)
        try await reopened.durable()
        let image = TemporaryDirectory()
        defer { image.remove() }
        try Self.crashImage(of: temp, into: image)
        try await reopened.close()
        let recovered = try openStore(image.store)
        #expect(try await recovered.credentials(rpID: "example.com").first == more)
        try await recovered.close()
    }

    @Test func aTornLastEntryIsLeftAndTheEntriesBeforeItReplayed() async throws {
        let temp = TemporaryDirectory()
        let image = TemporaryDirectory()
        defer {
            temp.remove()
            image.remove()
        }
        let store = try openStore(temp.store)
        let saved = Self.credentials(3)
        for credential in saved { try await store.save(credential) }
        try await store.durable()
        try Self.crashImage(of: temp, into: image)
        try await store.close()
        // The last entry's end never reached the disk.
        let log = image.store + "/" + RecordLog.fileName
        var bytes = try #require(FileManager.default.contents(atPath: log))
        let entries = RecordLogEntry.entries(in: Array(bytes))
        #expect(entries.count == 3)
        let lastEnd = entries.map(\.size).reduce(0, +)
        bytes.replaceSubrange(lastEnd - 10..<lastEnd, with: Data(count: 10))
        try bytes.write(to: URL(fileURLWithPath: log))
        let reopened = try openStore(image.store)
        #expect(try await reopened.credentials(rpID: "example.com") == saved.prefix(2).reversed())
        try await reopened.close()
        // The replay's commit passes the torn entry's number: reopened again, nothing changes.
        let again = try openStore(image.store)
        #expect(try await again.count() == 2)
        try await again.close()
    }

    @Test func aRegistrationLoggedAfterACommitThatWasLostIsNotReplayed() async throws {
        let temp = TemporaryDirectory()
        let before = TemporaryDirectory()
        let image = TemporaryDirectory()
        defer {
            temp.remove()
            before.remove()
            image.remove()
        }
        let (a, b, c) = (
            makeCredential(userHandle: [1]), makeCredential(userHandle: [2]), makeCredential(userHandle: [3])
        )
        let store = try openStore(temp.store)
        try await store.save(b)
        try await store.updateSignCount(credentialID: b.id, to: 8)
        try await store.save(a)
        try await store.durable()
        // SQLite's files before the delete's commit; the log after the registration that follows it.
        try Self.crashImage(of: temp, into: before, files: Self.databaseFiles)
        try await store.delete(credentialID: b.id)
        try await store.save(c)
        try await store.durable()
        try Self.crashImage(of: temp, into: image)
        try Self.crashImage(of: before, into: image, files: Self.databaseFiles)
        try await store.close()
        let reopened = try openStore(image.store)
        // A prefix of the writes: A, but not C without the delete before it.
        #expect(try await reopened.credentials(rpID: "example.com").map(\.id) == [a.id, b.id])
        try await reopened.close()
    }

    @Test func anEntryFromAnotherKeystoreRefusesTheStoreAndChangesNothing() async throws {
        let ours = TemporaryDirectory()
        let theirs = TemporaryDirectory()
        let image = TemporaryDirectory()
        defer {
            ours.remove()
            theirs.remove()
            image.remove()
        }
        let store = try openStore(ours.store)
        try await store.close()
        try Self.crashImage(of: ours, into: image, files: Self.databaseFiles)
        let other = try openStore(theirs.store)
        try await other.save(makeCredential())
        try await other.durable()
        try Self.crashImage(of: theirs, into: image, files: [RecordLog.fileName])
        try await other.close()
        let before = fileDigests(image.path)
        expectError(.recordAuthenticationFailed(path: image.store + "/" + RecordLog.fileName)) {
            _ = try openStore(image.store)
        }
        #expect(
            fileDigests(image.path).filter { !$0.key.hasSuffix("-wal") } == before.filter { !$0.key.hasSuffix("-wal") })
        let log = try #require(FileManager.default.contents(atPath: image.store + "/" + RecordLog.fileName))
        #expect(RecordLogEntry.entries(in: Array(log)).count == 1, "the foreign entry is still there")
    }

    @Test func aRefusedRegistrationLeavesNoEntryAndTheLoggedOnesBeforeIt() async throws {
        let temp = TemporaryDirectory()
        let image = TemporaryDirectory()
        defer {
            temp.remove()
            image.remove()
        }
        let store = try openStore(temp.store, capacity: 3)
        let saved = Self.credentials(4)
        for credential in saved.prefix(3) { try await store.save(credential) }
        #expect(await StoreOutcome { try await store.save(saved[3]) } == .full)
        try await store.durable()
        #expect(try await store.count() == 3)
        try Self.crashImage(of: temp, into: image)
        let log = try #require(FileManager.default.contents(atPath: image.store + "/" + RecordLog.fileName))
        #expect(RecordLogEntry.entries(in: Array(log)).count == 3)
        let reopened = try openStore(image.store, capacity: 3)
        #expect(try await reopened.credentials(rpID: "example.com") == saved.prefix(3).reversed())
        try await reopened.close()
        try await store.close()
    }

    @Test func aRefusedChangeOfAnotherKindKeepsTheRegistrationsOnlyLogged() async throws {
        let temp = TemporaryDirectory()
        defer { temp.remove() }
        let store = try openStore(temp.store)
        let saved = Self.credentials(3)
        for credential in saved { try await store.save(credential) }
        // Rolls back the open transaction that holds the three; they are put back.
        #expect(
            await StoreOutcome { _ = try await store.updateDeviceState { _ throws(CTAPStatus) in throw .pinInvalid } }
                == .refused(.pinInvalid))
        #expect(try await store.credentials(rpID: "example.com") == saved.reversed())
        try await store.delete(credentialID: saved[0].id)
        try await store.close()
        let reopened = try openStore(temp.store)
        #expect(try await reopened.credentials(rpID: "example.com") == saved.dropFirst().reversed())
        try await reopened.close()
    }

    /// A registration's statements run on GRDB's queue after `save` returns (`register`); should
    /// SQLite refuse them there, the registration is already acknowledged: the store stops
    /// rather than answer without it, and the next open replays it from the log.
    @Test func aRegistrationSQLiteRefusesAfterItsSaveStopsTheStoreAndTheNextOpenHasIt() async throws {
        let temp = TemporaryDirectory()
        let image = TemporaryDirectory()
        defer {
            temp.remove()
            image.remove()
        }
        let store = try openStore(temp.store)
        let saved = Self.credentials(3)
        for credential in saved.prefix(2) { try await store.save(credential) }
        try await store.durable()
        try store.queue.inDatabase { db in
            try db.execute(
                sql:
                    "CREATE TEMP TRIGGER refuse BEFORE INSERT ON main.credential BEGIN SELECT RAISE(ABORT, 'refused'); END"
            )
        }
        try await store.save(saved[2])
        try await store.durable()
        #expect(await StoreOutcome { _ = try await store.credentials(rpID: "example.com") } == .failed(.closed))
        #expect(await StoreOutcome { try await store.save(makeCredential(rp: "other.example")) } == .failed(.closed))
        try Self.crashImage(of: temp, into: image)
        let reopened = try openStore(image.store)
        #expect(try await reopened.credentials(rpID: "example.com") == saved.reversed())
        try await reopened.close()
        // Closed, the stopped store lets its directory go as it stands: reopened in place, it has them too.
        try await store.close()
        let inPlace = try openStore(temp.store)
        #expect(try await inPlace.credentials(rpID: "example.com") == saved.reversed())
        try await inPlace.close()
    }

    /// A statement inside the open transaction journals the pages it changes, so that it can be
    /// undone alone (a reset's delete of every row: far more than SQLite keeps in memory by
    /// default). The journal stays in memory: no file of the process's is one of SQLite's
    /// temporary files (`etilqs_…`, unlinked, under /var/tmp).
    @Test func statementJournalsStayInMemory() async throws {
        let temp = TemporaryDirectory()
        defer { temp.remove() }
        let store = try openStore(temp.store)
        for credential in Self.credentials(2000) { try await store.save(credential) }
        try await store.deleteAll()
        let descriptors = try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")
        let targets = descriptors.compactMap {
            try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + $0)
        }
        #expect(!targets.isEmpty)
        #expect(targets.filter { $0.contains("etilqs_") } == [])
        try await store.close()
    }

    @Test func aLogWithoutItsDatabaseIsRefusedAndOneOthersCanReachToo() async throws {
        let temp = TemporaryDirectory()
        defer { temp.remove() }
        try await openStore(temp.store).close()
        let log = temp.store + "/" + RecordLog.fileName
        #expect(permissions(log) == 0o600)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: log)
        expectError(.exposedFile(path: log, mode: 0o644)) { _ = try openStore(temp.store) }
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: log)
        try FileManager.default.removeItem(atPath: temp.database)
        expectError(.orphanedFile(path: log)) { _ = try openStore(temp.store) }
    }
}
