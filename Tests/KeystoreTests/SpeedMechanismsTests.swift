import Foundation
import Testing

@testable import Keystore

/// Each speed mechanism turned off (`SpeedMechanisms`, `PASSKEYD_SPEED_OFF`) takes the plain
/// path, and the store keeps the guarantees it keeps with them on. The SIGKILL test runs with
/// each off as well (`KeystoreCrashTests.acknowledgedWritesSurviveSIGKILL`).
@Suite(.timeLimit(.minutes(2))) struct SpeedMechanismsTests {
    static let everyPlainPath: [SpeedMechanisms] = [
        .recordLog, .groupCommit, [.recordLog, .groupCommit]
    ]

    @Test func theSwitchNamesEachMechanismAndReportsWordsItDoesNotKnow() {
        let parsed = SpeedMechanisms.parse(" RecordLog, groupcommit,,turbo, aio ")
        #expect(parsed.off == [.recordLog, .groupCommit])
        #expect(parsed.unknown == ["turbo", "aio"], "AIO was removed in session 17")
        #expect(SpeedMechanisms.parse("").off.isEmpty)
        #expect(SpeedMechanisms.parse("groupcommit") == (.groupCommit, []))
        #expect(
            SpeedMechanisms([.recordLog, .groupCommit, .acceptThread]).description
                == "recordlog,groupcommit,acceptthread")
    }

    /// Concurrent saves, as from several connections: each visible to the next call at once,
    /// and once `durable()` returned, in the files a crash leaves and in the store reopened.
    @Test(arguments: everyPlainPath)
    func savesAreVisibleAtOnceAndSurviveACrashOnceDurable(off: SpeedMechanisms) async throws {
        let temp = TemporaryDirectory()
        let image = TemporaryDirectory()
        defer {
            temp.remove()
            image.remove()
        }
        let store = try openStore(temp.store, off: off)
        let credentials = RecordLogTests.credentials(40)
        try await saveConcurrently(credentials, to: store)
        try RecordLogTests.crashImage(of: temp, into: image)
        let crashed = try openStore(image.store, off: off)
        #expect(try await crashed.count() == credentials.count)
        for credential in credentials { #expect(try await crashed.credential(id: credential.id) == credential) }
        try await crashed.close()
        try await store.close()
        let reopened = try openStore(temp.store, off: off)
        #expect(Set(try await reopened.credentials(rpID: "example.com").map(\.id)) == Set(credentials.map(\.id)))
        try await reopened.close()
    }

    /// With the record log off a registration is an SQLite commit: the log holds no entry, and
    /// the database alone has every flushed registration after a crash.
    @Test(arguments: [SpeedMechanisms(), .recordLog])
    func withTheRecordLogOffNothingIsLogged(off: SpeedMechanisms) async throws {
        let temp = TemporaryDirectory()
        let image = TemporaryDirectory()
        defer {
            temp.remove()
            image.remove()
        }
        let store = try openStore(temp.store, off: off)
        let saved = RecordLogTests.credentials(3)
        for credential in saved { try await store.save(credential) }
        try await store.durable()
        let bytes = try #require(FileManager.default.contents(atPath: temp.store + "/" + RecordLog.fileName)).map { $0 }
        let logged = [0..<RecordLog.halfCapacity, RecordLog.halfCapacity..<RecordLog.capacity]
            .map { RecordLogEntry.entries(in: bytes, region: $0).count }.reduce(0, +)
        #expect(logged == (off.contains(.recordLog) ? 0 : saved.count))
        try RecordLogTests.crashImage(of: temp, into: image)
        let crashed = try openStore(image.store, off: off)
        #expect(try await crashed.credentials(rpID: "example.com") == saved.reversed())
        try await crashed.close()
        try await store.close()
    }

    /// With group commit off a save returns flushed: nothing is left for `durable()`.
    @Test(arguments: [SpeedMechanisms(), .groupCommit, [.groupCommit, .recordLog]])
    func withGroupCommitOffASaveIsDurableWhenItReturns(off: SpeedMechanisms) async throws {
        let temp = TemporaryDirectory()
        defer { temp.remove() }
        let store = try openStore(temp.store, off: off)
        try await store.save(makeCredential())
        #expect(store.isDurable == off.contains(.groupCommit))
        try await store.durable()
        #expect(store.isDurable)
        try await store.close()
    }
}
