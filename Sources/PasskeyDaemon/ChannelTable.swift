import CTAP
import CTAPHID
import NIOCore
import Synchronization

/// Which connection holds each channel of the one device, who holds its one CTAP transaction
/// (CTAP 2.1 §11.2.9), and who waits for it.
///
/// A transaction that finds the device busy waits its turn, first come first served
/// (`waitForTransaction`), for as long as the device computes; once its patience has passed
/// while the device waits for its user, it is answered ERR_CHANNEL_BUSY, which the host
/// retries (§11.2.9.1.6). So a hardware key behaves: while it computes, its firmware reads no
/// report and the host's next one waits in the USB stack; only a key waiting for its user
/// reads reports meanwhile, and refuses them busy. Refusing at once would cost every host a
/// retry for a device free again within microseconds (python-fido2 waits 100 ms before it),
/// and a fixed patience alone would refuse hosts whenever a loaded machine computes slowly.
///
/// A `Mutex`, not actor state: every sign-in checks its channel and takes the transaction
/// when its message arrives, and gives the transaction back before its answer. As a visit
/// to an actor, each of the two cost two executor switches, and under the connection's task
/// executor the runtime makes every switch a job through the event loop's queue (it never
/// lets an actor run inline on the calling thread there). Each operation is a few
/// dictionary look-ups; the lock is never held across a suspension or a call out.
final class ChannelTable: Sendable {
    typealias ConnectionID = UInt64

    private struct State {
        var owners: [UInt32: ConnectionID] = [:]
        var channelCounts: [ConnectionID: Int] = [:]
        /// Who holds the one CTAP transaction.
        var transaction: CTAPCaller?
        /// Transactions waiting for the device, in arrival order: whoever ends one hands the
        /// device to the first.
        var queue: [Waiter] = []
        /// Numbers each waiter, so an expired patience withdraws its own waiter and no other.
        var tickets: UInt64 = 0
        /// The running transaction waits for its user (it reported UPNEEDED), not for the CPU.
        var awaitingUser = false

        func owns(_ connection: ConnectionID, channel: UInt32) -> Bool {
            owners[channel] == connection
        }

        mutating func hold(_ channel: UInt32, for connection: ConnectionID) {
            owners[channel] = connection
            channelCounts[connection, default: 0] += 1
        }
    }

    private struct Waiter {
        let ticket: UInt64
        let caller: CTAPCaller
        let continuation: CheckedContinuation<Bool, Never>
    }

    /// Channels one connection may hold; past it, the connection is dropped.
    let channelsPerConnection: Int
    private let state = Mutex(State())

    init(channelsPerConnection: Int) {
        self.channelsPerConnection = channelsPerConnection
    }

    /// A fresh random CID, never 0, never broadcast, never one in use (§11.2.9.1.3);
    /// nil once the connection holds as many as one may.
    func allocateChannel(for connection: ConnectionID) -> UInt32? {
        state.withLock { state in
            guard state.channelCounts[connection, default: 0] < channelsPerConnection else { return nil }
            var channel: UInt32
            repeat {
                channel = UInt32.random(in: 1...(CTAPHIDChannel.broadcast - 1))
            } while state.owners[channel] != nil
            state.hold(channel, for: connection)
            return channel
        }
    }

    /// What INIT on a channel nobody on this connection allocated finds.
    enum Adoption: Sendable {
        /// The channel was free and is now this connection's.
        case adopted
        /// Another connection holds it.
        case taken
        /// The connection holds as many channels as one may.
        case overLimit
    }

    /// Takes a free non-broadcast channel for `connection`, as INIT on it asks.
    func adoptChannel(_ channel: UInt32, for connection: ConnectionID) -> Adoption {
        state.withLock { state in
            guard state.owners[channel] == nil else { return .taken }
            guard state.channelCounts[connection, default: 0] < channelsPerConnection else { return .overLimit }
            state.hold(channel, for: connection)
            return .adopted
        }
    }

    func owns(_ connection: ConnectionID, channel: UInt32) -> Bool {
        state.withLock { $0.owns(connection, channel: channel) }
    }

    var isBusy: Bool { state.withLock { $0.transaction != nil } }

    /// What `beginTransaction(ifOwner:)` found.
    enum Beginning: Sendable {
        case begun
        /// The caller's channel is not its connection's (ERR_INVALID_CHANNEL).
        case notOwner
        /// Another transaction runs (ERR_CHANNEL_BUSY).
        case busy
    }

    /// Takes the device for a transaction if the caller's channel is its connection's; a
    /// channel not this connection's is refused before a busy device. (Transactions wait only
    /// while one runs: its end hands the device straight to the first of them.)
    func beginTransaction(ifOwner caller: CTAPCaller) -> Beginning {
        state.withLock { state in
            guard state.owns(caller.connection, channel: caller.channel) else { return .notOwner }
            guard state.transaction == nil else { return .busy }
            state.transaction = caller
            return .begun
        }
    }

    /// The running transaction says whether it now waits for its user (KEEPALIVE UPNEEDED) or
    /// computes (PROCESSING); only the former lets a waiting transaction's patience run out.
    func setAwaitingUser(_ awaiting: Bool, by caller: CTAPCaller) {
        state.withLock { state in
            if state.transaction == caller { state.awaitingUser = awaiting }
        }
    }

    /// Waits for the device behind every transaction that came before: true once the
    /// transaction is the caller's, false when `patience` passed while the device waited for
    /// its user (the caller answers ERR_CHANNEL_BUSY); a device that computes is waited for.
    /// Called on `loop`, which keeps the time.
    func waitForTransaction(_ caller: CTAPCaller, on loop: any EventLoop, patience: TimeAmount) async -> Bool {
        let ticket = state.withLock { state in
            state.tickets += 1
            return state.tickets
        }
        // Armed first, on the caller's own loop: it cannot fire before the caller is queued.
        assert(loop.inEventLoop)
        let expiry = Expiry()
        @Sendable func arm() {
            expiry.task = loop.scheduleTask(in: patience) {
                if self.state.withLock({ $0.awaitingUser }) {
                    self.withdraw(ticket)?.resume(returning: false)
                } else {
                    arm()
                }
            }
        }
        arm()
        let begun = await withCheckedContinuation { continuation in
            let now = state.withLock { state in
                guard state.transaction != nil else {
                    state.transaction = caller
                    return true
                }
                state.queue.append(Waiter(ticket: ticket, caller: caller, continuation: continuation))
                return false
            }
            if now { continuation.resume(returning: true) }
        }
        assert(loop.inEventLoop)
        expiry.task?.cancel()
        return begun
    }

    /// The waiter's current timer: re-armed, and cancelled, only on its loop.
    private final class Expiry: @unchecked Sendable {
        var task: Scheduled<Void>?
    }

    /// The waiter with `ticket`, taken out of the queue, unless it was handed the device already.
    private func withdraw(_ ticket: UInt64) -> CheckedContinuation<Bool, Never>? {
        state.withLock { state in
            guard let index = state.queue.firstIndex(where: { $0.ticket == ticket }) else { return nil }
            return state.queue.remove(at: index).continuation
        }
    }

    /// A closing connection's waiting transaction leaves the queue at once (it is told false).
    func withdraw(connection: ConnectionID) {
        let leaving = state.withLock { state in
            defer { state.queue.removeAll { $0.caller.connection == connection } }
            return state.queue.filter { $0.caller.connection == connection }
        }
        for waiter in leaving { waiter.continuation.resume(returning: false) }
    }

    /// Transactions waiting for the device.
    var waitingCount: Int { state.withLock { $0.queue.count } }

    /// Ends `caller`'s transaction; the first waiting transaction, if any, has the device now.
    func endTransaction(_ caller: CTAPCaller) {
        let next = state.withLock { state -> Waiter? in
            guard state.transaction == caller else { return nil }
            state.transaction = nil
            state.awaitingUser = false
            guard !state.queue.isEmpty else { return nil }
            let next = state.queue.removeFirst()
            state.transaction = next.caller
            return next
        }
        next?.continuation.resume(returning: true)
    }

    /// Frees every channel of a closed connection; returns them, so what each began can end.
    func release(_ connection: ConnectionID) -> [UInt32] {
        state.withLock { state in
            let channels = state.owners.filter { $0.value == connection }.map(\.key)
            for channel in channels { state.owners[channel] = nil }
            state.channelCounts[connection] = nil
            return channels
        }
    }
}
