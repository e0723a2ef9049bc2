import Authenticator
import CTAP
import CTAPHID
import Dispatch
import Foundation
import NIOPosix
import Synchronization

/// A `CTAP2MessageHandler` for the server tests:
/// 0x04 answers `[0x00, 0xA0]` (an empty getInfo map), 0x01 asks `presence` (saying
/// so through `progress`, as the authenticator does) and maps the outcome to a status
/// byte, 0x0C computes for `message[1]` × 10 ms (a slow key on a loaded machine, never
/// waiting for its user) and then echoes, anything else echoes the message after a success byte.
actor FakeHandler: CTAP2MessageHandler {
    let presence: any UserPresence
    private(set) var powerCycles = 0
    private var finished: [CheckedContinuation<Void, Never>] = []
    private(set) var completed = 0
    /// What the last handled message returned.
    private(set) var lastResponse: [UInt8]?
    /// Who sent each handled message, in order.
    private(set) var callers: [CTAPCaller] = []
    /// Callers the server said are gone.
    private(set) var released: [CTAPCaller] = []
    /// For each handled message, whether it ran on one of NIO's event loops (a connection's).
    private(set) var ranOnEventLoop: [Bool] = []

    init(presence: any UserPresence) {
        self.presence = presence
    }

    func handle(
        _ message: [UInt8], from caller: CTAPCaller,
        progress: nonisolated(nonsending) @escaping @Sendable (KeepaliveStatus) async -> Void
    ) async -> [UInt8] {
        callers.append(caller)
        ranOnEventLoop.append(MultiThreadedEventLoopGroup.currentEventLoop != nil)
        let response = await respond(to: message, progress: progress)
        lastResponse = response
        completed += 1
        finished.forEach { $0.resume() }
        finished = []
        return response
    }

    private func respond(
        to message: [UInt8], progress: nonisolated(nonsending) @Sendable (KeepaliveStatus) async -> Void
    ) async -> [UInt8] {
        switch message.first {
        case 0x04:
            return [0x00, 0xA0]
        case 0x01:
            await progress(.userPresenceNeeded)
            switch await presence.confirmPresence(UserActionRequest(purpose: .makeCredential, rpID: "example.com")) {
            case .approved: return [CTAPStatus.success.rawValue]
            case .denied: return [CTAPStatus.operationDenied.rawValue]
            case .timedOut: return [CTAPStatus.userActionTimeout.rawValue]
            case .cancelled: return [CTAPStatus.keepaliveCancel.rawValue]
            }
        case 0x0C:
            try? await Task.sleep(for: .milliseconds(10 * Int(message.dropFirst().first ?? 0)))
            return [0x00] + message
        default:
            return [0x00] + message
        }
    }

    func release(_ caller: CTAPCaller) {
        released.append(caller)
        releases.forEach { $0.resume() }
        releases = []
    }

    private var releases: [CheckedContinuation<Void, Never>] = []

    /// Returns once the server has said `caller` is gone.
    func waitForRelease(of caller: CTAPCaller) async {
        while !released.contains(caller) {
            await withCheckedContinuation { releases.append($0) }
        }
    }

    func powerCycle() async {
        powerCycles += 1
    }

    /// While held, `durable()` waits for `settleDurability(_:)`, like a store whose flush is slow.
    private var durabilityHeld = false
    private var durabilityOutcome = true
    private var durabilityWaiters: [CheckedContinuation<Void, Never>] = []

    func holdDurability() {
        durabilityHeld = true
    }

    /// Ends the slow flush: every held and later `durable()` answers `outcome`.
    func settleDurability(_ outcome: Bool) {
        durabilityHeld = false
        durabilityOutcome = outcome
        durabilityWaiters.forEach { $0.resume() }
        durabilityWaiters = []
    }

    func durable() async -> Bool {
        if let flush = blockingFlush.withLock({ $0 }) {
            // Like `Keystore.durable`: the waiting thread itself runs the flush, and is held
            // until the test ends it (`endFlush`), or for 10 s at most.
            flushRunning.store(true, ordering: .sequentiallyConsistent)
            Self.block(on: flush)
            flushRunning.store(false, ordering: .sequentiallyConsistent)
            return true
        }
        if durabilityHeld { await withCheckedContinuation { durabilityWaiters.append($0) } }
        return durabilityOutcome
    }

    /// When set, each `durable()` blocks its thread on it, as an `fdatasync` does.
    private nonisolated let blockingFlush = Mutex<DispatchSemaphore?>(nil)
    /// True while a blocking flush holds its thread.
    nonisolated let flushRunning = Atomic<Bool>(false)

    private nonisolated static func block(on flush: DispatchSemaphore) { _ = flush.wait(timeout: .now() + 10) }

    nonisolated func blockFlushes() { blockingFlush.withLock { $0 = DispatchSemaphore(value: 0) } }

    /// Ends the blocked flush.
    nonisolated func endFlush() { blockingFlush.withLock { $0?.signal() } }

    nonisolated var isDurable: Bool { blockingFlush.withLock { $0 == nil } }

    /// Returns once `count` messages have been handled.
    func waitForCompleted(_ count: Int) async {
        while completed < count {
            await withCheckedContinuation { finished.append($0) }
        }
    }
}
