import CTAP
import CTAPHID
import Synchronization

/// Which connection holds each channel of the one device, and who holds its one CTAP
/// transaction (CTAP 2.1 §11.2.9: everyone else gets ERR_CHANNEL_BUSY meanwhile).
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

        func owns(_ connection: ConnectionID, channel: UInt32) -> Bool {
            owners[channel] == connection
        }

        mutating func hold(_ channel: UInt32, for connection: ConnectionID) {
            owners[channel] = connection
            channelCounts[connection, default: 0] += 1
        }
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
    /// channel not this connection's is refused before a busy device.
    func beginTransaction(ifOwner caller: CTAPCaller) -> Beginning {
        state.withLock { state in
            guard state.owns(caller.connection, channel: caller.channel) else { return .notOwner }
            guard state.transaction == nil else { return .busy }
            state.transaction = caller
            return .begun
        }
    }

    func endTransaction(_ caller: CTAPCaller) {
        state.withLock { state in
            if state.transaction == caller { state.transaction = nil }
        }
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
