import Authenticator
import CBOR
import CTAP
import CTAPHID
import Foundation

/// The one virtual HID device every connection shares: channel allocation and
/// the device-wide rule that a single CTAP transaction runs at a time
/// (CTAP 2.1 §11.2.9: other channels get `ERR_CHANNEL_BUSY` meanwhile).
actor CTAPHIDDevice {
    typealias ConnectionID = UInt64

    let handler: any CTAP2MessageHandler
    let broker: PromptBroker
    /// Faults and watchers (vendor commands FAULT and WATCH).
    let controls: TestControls
    let info: DaemonInfo

    private var owners: [UInt32: ConnectionID] = [:]
    private var channelCounts: [ConnectionID: Int] = [:]
    private var nextConnection: ConnectionID = 0
    /// Who holds the one CTAP transaction (§11.2.9: everyone else gets ERR_CHANNEL_BUSY).
    private var transaction: CTAPCaller?

    init(handler: any CTAP2MessageHandler, broker: PromptBroker, controls: TestControls, info: DaemonInfo) {
        self.handler = handler
        self.broker = broker
        self.controls = controls
        self.info = info
    }

    func register() -> ConnectionID {
        nextConnection += 1
        return nextConnection
    }

    /// A fresh random CID, never 0, never broadcast, never one in use (§11.2.9.1.3);
    /// nil once the connection holds as many as one may.
    func allocateChannel(for connection: ConnectionID) -> UInt32? {
        guard channelCounts[connection, default: 0] < CTAPHIDServer.Limits.channelsPerConnection else { return nil }
        var channel: UInt32
        repeat {
            channel = UInt32.random(in: 1...(CTAPHIDChannel.broadcast - 1))
        } while owners[channel] != nil
        hold(channel, for: connection)
        return channel
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
        guard owners[channel] == nil else { return .taken }
        guard channelCounts[connection, default: 0] < CTAPHIDServer.Limits.channelsPerConnection else { return .overLimit }
        hold(channel, for: connection)
        return .adopted
    }

    private func hold(_ channel: UInt32, for connection: ConnectionID) {
        owners[channel] = connection
        channelCounts[connection, default: 0] += 1
    }

    func owns(_ connection: ConnectionID, channel: UInt32) -> Bool {
        owners[channel] == connection
    }

    var isBusy: Bool { transaction != nil }

    /// Takes the device for a transaction; false when one is already running.
    func beginTransaction(_ caller: CTAPCaller) -> Bool {
        guard transaction == nil else { return false }
        transaction = caller
        return true
    }

    /// What `beginTransaction(ifOwner:)` found.
    enum Beginning: Sendable {
        case begun
        /// The caller's channel is not its connection's (ERR_INVALID_CHANNEL).
        case notOwner
        /// Another transaction runs (ERR_CHANNEL_BUSY).
        case busy
    }

    /// `owns` then `beginTransaction` in one call: a message's one visit to this actor instead
    /// of two (each visit is two executor switches, each a job through the event loop's queue).
    func beginTransaction(ifOwner caller: CTAPCaller) -> Beginning {
        guard owns(caller.connection, channel: caller.channel) else { return .notOwner }
        return beginTransaction(caller) ? .begun : .busy
    }

    func endTransaction(_ caller: CTAPCaller) {
        if transaction == caller { transaction = nil }
    }

    /// Frees every channel of a closed connection, and ends what each had begun.
    func release(_ connection: ConnectionID) async {
        let channels = owners.filter { $0.value == connection }.keys
        owners = owners.filter { $0.value != connection }
        channelCounts[connection] = nil
        for channel in channels { await handler.release(CTAPCaller(connection: connection, channel: channel)) }
    }

    /// The vendor STATUS reply: a CBOR map (docs/vendor-commands.md).
    func status() async -> [UInt8] {
        let prompt = await broker.pendingPrompt
        let status = DaemonStatus(
            version: DaemonInfo.currentVersion, pid: Int(info.pid), socket: info.socketPath, startedAt: info.startedAt,
            pending: prompt?.kind.rawValue ?? "none", promptID: prompt?.id, rpID: prompt?.rpID, profile: handler.profileName)
        return status.cbor.encoded
    }
}
