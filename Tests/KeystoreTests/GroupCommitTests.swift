import Authenticator
import Foundation
import Testing
@testable import Keystore

/// Group commit: who waits for which flush, and what a store's caller can rely on.
@Suite struct GroupCommitTests {
    /// Drives the state machine by hand: the test plays the flush.
    actor Driver {
        var commit = GroupCommit()
        /// How many flushes the machine asked for.
        private(set) var flushesStarted = 0
        private(set) var answered = 0

        func recordCommit() { if commit.recordCommit() { flushesStarted += 1 } }

        func waitDurable() async throws {
            try await withCheckedThrowingContinuation { continuation in
                if commit.wait(continuation) { flushesStarted += 1 }
            }
            answered += 1
        }

        func endFlush(_ outcome: Result<Void, KeystoreError>) {
            if commit.flushEnded(outcome) { flushesStarted += 1 }
        }

        var waiting: Int { commit.waitingCount }
    }

    /// Polls (yielding) until the driver holds `count` waiters: a task's wait is queued once it ran.
    func until(_ driver: Driver, waiting count: Int) async {
        while await driver.waiting != count { await Task.yield() }
    }

    @Test func aCommitStartsItsFlushBeforeAnyoneWaits() async throws {
        let driver = Driver()
        await driver.recordCommit()
        #expect(await driver.flushesStarted == 1, "the flush overlaps what the committing command does next")
        #expect(await driver.waiting == 0)
        await driver.recordCommit()
        #expect(await driver.flushesStarted == 1, "a commit during a flush waits for the next one")
        // The end of the first flush starts the one for the commit that came during it.
        await driver.endFlush(.success(()))
        #expect(await driver.flushesStarted == 2)
        #expect(await !driver.commit.isDurable)
        await driver.endFlush(.success(()))
        #expect(await driver.commit.isDurable)
        #expect(await driver.flushesStarted == 2, "nothing left to flush")
    }

    @Test func aFailedFlushIsRetriedOnlyForAWaiter() async throws {
        let driver = Driver()
        await driver.recordCommit()
        await driver.recordCommit()
        await driver.endFlush(.failure(.io(path: "wal", operation: .sync, errno: EIO)))
        #expect(await driver.flushesStarted == 1, "a broken disk is not flushed again in a loop")
        let waiter = Task { try await driver.waitDurable() }
        await until(driver, waiting: 1)
        #expect(await driver.flushesStarted == 2)
        await driver.endFlush(.success(()))
        try await waiter.value
        #expect(await driver.commit.isDurable)
    }

    @Test func commitsDuringAFlushShareTheNextOne() async throws {
        let driver = Driver()
        await driver.recordCommit()
        let first = Task { try await driver.waitDurable() }
        await until(driver, waiting: 1)
        #expect(await driver.flushesStarted == 1)
        // Three more commits arrive while that flush runs: none starts a flush of its own.
        var later: [Task<Void, any Error>] = []
        for _ in 0..<3 {
            await driver.recordCommit()
            later.append(Task { try await driver.waitDurable() })
        }
        await until(driver, waiting: 4)
        #expect(await driver.flushesStarted == 1)
        // The running flush covers only the first commit; its end starts one for the other three.
        await driver.endFlush(.success(()))
        try await first.value
        #expect(await driver.answered == 1)
        #expect(await driver.flushesStarted == 2)
        await driver.endFlush(.success(()))
        for task in later { try await task.value }
        #expect(await driver.answered == 4)
        #expect(await driver.commit.isDurable)
    }

    @Test func aFailedFlushFailsTheWaitsItCoveredAndTheNextCanSucceed() async throws {
        let driver = Driver()
        await driver.recordCommit()
        let failing = Task { try await driver.waitDurable() }
        await until(driver, waiting: 1)
        await driver.endFlush(.failure(.io(path: "wal", operation: .sync, errno: EIO)))
        await #expect(throws: KeystoreError.io(path: "wal", operation: .sync, errno: EIO)) { try await failing.value }
        #expect(await !driver.commit.isDurable, "nothing a failed flush covered counts as durable")
        let retry = Task { try await driver.waitDurable() }
        await until(driver, waiting: 1)
        await driver.endFlush(.success(()))
        try await retry.value
        #expect(await driver.commit.isDurable)
    }

    @Test func aSaveIsVisibleAtOnceAndConcurrentSavesAreAllDurable() async throws {
        let temp = TemporaryDirectory()
        defer { temp.remove() }
        let store = try openStore(temp.store)
        let credentials = (0..<16).map { makeCredential(rp: "rp\($0 % 4).example", userHandle: [UInt8($0)]) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for credential in credentials {
                group.addTask {
                    try await store.save(credential)
                    // Visible to the next call before any flush.
                    #expect(try await store.credential(id: credential.id) == credential)
                    try await store.durable()
                }
            }
            try await group.waitForAll()
        }
        try await store.close()
        let reopened = try openStore(temp.store)
        for credential in credentials { #expect(try await reopened.credential(id: credential.id) == credential) }
        try await reopened.close()
    }
}
