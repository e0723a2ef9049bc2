import Authenticator
import Foundation
import Testing

@testable import Keystore

/// Group commit: who waits for which flush, and what a store's caller can rely on.
@Suite(.timeLimit(.minutes(1))) struct GroupCommitTests {
    /// Drives the state machine by hand: the test plays the flushes.
    actor Driver {
        var commit = GroupCommit()

        func recordCommit(to file: GroupCommit.Files = .wal) { commit.recordCommit(to: file) }

        /// What a caller that needs every commit so far durable is told: at once, or once it
        /// is answered.
        func turn() async -> Outcome {
            let turn: GroupCommit.Turn
            if let now = commit.turn() {
                turn = now
            } else {
                turn = await withCheckedContinuation { continuation in commit.wait(continuation) }
            }
            switch turn {
            case .lead(let files): return .lead(files)
            case .finished(.success): return .durable
            case .finished(.failure(let error)): return .failed(error)
            }
        }

        /// Who was answered what, in order.
        private(set) var answers: [(caller: Int, outcome: Outcome)] = []

        /// `turn()` for a numbered caller, recorded in `answers`.
        func turn(caller: Int) async {
            let outcome = await turn()
            answers.append((caller, outcome))
        }

        func endFlush(_ outcome: Result<Void, KeystoreError>) { commit.flushEnded(outcome) }

        var waiting: Int { commit.waitingCount }
        var flushRunning: Bool { commit.flushing != nil }
    }

    enum Outcome: Equatable {
        case lead(GroupCommit.Files)
        case durable
        case failed(KeystoreError)
    }

    static let eio = KeystoreError.io(path: "wal", operation: .sync, errno: EIO)

    /// Polls (yielding) until the driver holds `count` waiters: a task's wait is queued once it ran.
    func until(_ driver: Driver, waiting count: Int) async {
        while await driver.waiting != count { await Task.yield() }
    }

    /// Polls (yielding) until `count` callers were answered.
    func until(_ driver: Driver, answered count: Int) async {
        while await driver.answers.count != count { await Task.yield() }
    }

    @Test func nothingCommittedIsDurableAtOnceAndTheFirstWaitLeadsTheFlush() async throws {
        let driver = Driver()
        #expect(await driver.turn() == .durable, "nothing to flush")
        await driver.recordCommit()
        #expect(await !driver.flushRunning, "a commit alone starts no flush: the caller that needs it durable runs it")
        #expect(await driver.turn() == .lead(.wal))
        #expect(await driver.flushRunning)
        await driver.endFlush(.success(()))
        #expect(await driver.commit.isDurable)
        #expect(await driver.turn() == .durable)
    }

    @Test func commitsDuringAFlushShareTheNextOneLedByTheFirstWaiter() async throws {
        let driver = Driver()
        await driver.recordCommit()
        #expect(await driver.turn() == .lead(.wal))
        // Three more commits arrive while that flush runs: each waits, none flushes by itself.
        for caller in 1...3 {
            await driver.recordCommit()
            Task { await driver.turn(caller: caller) }
            await until(driver, waiting: caller)
        }
        // The running flush covers only the first commit; the first later waiter leads the
        // next, which covers all three.
        await driver.endFlush(.success(()))
        await until(driver, answered: 1)
        #expect(await driver.answers.map(\.caller) == [1])
        #expect(await driver.answers.map(\.outcome) == [.lead(.wal)])
        #expect(await driver.waiting == 2)
        #expect(await !driver.commit.isDurable)
        await driver.endFlush(.success(()))
        await until(driver, answered: 3)
        #expect(await driver.answers.map(\.outcome) == [.lead(.wal), .durable, .durable])
        #expect(await driver.commit.isDurable)
        #expect(await !driver.flushRunning)
    }

    @Test func aFailedFlushFailsTheWaitsItCoveredAndIsRetriedOnlyForALaterWaiter() async throws {
        let driver = Driver()
        await driver.recordCommit()
        #expect(await driver.turn() == .lead(.wal))
        // Waits for the same commit: the running flush covers them.
        Task { await driver.turn(caller: 1) }
        await until(driver, waiting: 1)
        await driver.endFlush(.failure(Self.eio))
        await until(driver, answered: 1)
        #expect(await driver.answers.map(\.outcome) == [.failed(Self.eio)])
        #expect(await !driver.commit.isDurable, "nothing a failed flush covered counts as durable")
        #expect(await !driver.flushRunning, "a broken disk is not flushed again in a loop")
        // The next caller that needs it leads a new flush, which can succeed.
        #expect(await driver.turn() == .lead(.wal))
        await driver.endFlush(.success(()))
        #expect(await driver.commit.isDurable)
    }

    @Test func aFlushCoversTheFilesWrittenSinceTheLastOneThatSucceeded() async throws {
        let driver = Driver()
        await driver.recordCommit(to: .log)
        #expect(await driver.turn() == .lead(.log), "registrations alone: the log, not the WAL")
        await driver.endFlush(.success(()))
        await driver.recordCommit(to: .log)
        await driver.recordCommit(to: .wal)
        #expect(await driver.turn() == .lead([.log, .wal]))
        await driver.endFlush(.failure(Self.eio))
        await driver.recordCommit(to: .log)
        #expect(await driver.turn() == .lead([.log, .wal]), "the WAL a failed flush left is flushed again")
        await driver.endFlush(.success(()))
        await driver.recordCommit(to: .wal)
        #expect(await driver.turn() == .lead(.wal))
    }

    @Test func aSaveIsVisibleAtOnceAndConcurrentSavesAreAllDurable() async throws {
        let temp = TemporaryDirectory()
        defer { temp.remove() }
        let store = try openStore(temp.store)
        let credentials = (0..<16).map { makeCredential(rp: "rp\($0 % 4).example", userHandle: [UInt8($0)]) }
        try await saveConcurrently(credentials, to: store)
        try await store.close()
        let reopened = try openStore(temp.store)
        for credential in credentials { #expect(try await reopened.credential(id: credential.id) == credential) }
        try await reopened.close()
    }
}
