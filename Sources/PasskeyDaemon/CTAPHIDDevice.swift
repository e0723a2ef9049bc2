import Authenticator
import CBOR
import CTAP
import CTAPHID
import Foundation
import Synchronization

/// The one virtual HID device every connection shares: its channels and the device-wide
/// rule that a single CTAP transaction runs at a time (`ChannelTable`; CTAP 2.1 §11.2.9:
/// other channels wait their turn for a moment, then get `ERR_CHANNEL_BUSY`), the handler,
/// prompts and test controls.
actor CTAPHIDDevice {
    typealias ConnectionID = UInt64

    let handler: any CTAP2MessageHandler
    let broker: PromptBroker
    /// Faults and watchers (vendor commands FAULT and WATCH).
    let controls: TestControls
    let info: DaemonInfo

    /// Channels and the one transaction: locked, not this actor's state (`ChannelTable` says why).
    nonisolated let channels = ChannelTable(channelsPerConnection: CTAPHIDServer.Limits.channelsPerConnection)
    /// The last connection number given out: counted, not this actor's state, so a connection
    /// is numbered while its channel is set up on its event loop (`ConnectionSetUp`).
    private nonisolated let lastConnection = Atomic<ConnectionID>(0)

    init(handler: any CTAP2MessageHandler, broker: PromptBroker, controls: TestControls, info: DaemonInfo) {
        self.handler = handler
        self.broker = broker
        self.controls = controls
        self.info = info
    }

    nonisolated func register() -> ConnectionID {
        lastConnection.add(1, ordering: .relaxed).newValue
    }

    /// Frees every channel of a closed connection, and ends what each had begun.
    func release(_ connection: ConnectionID) async {
        for channel in channels.release(connection) {
            await handler.release(CTAPCaller(connection: connection, channel: channel))
        }
    }

    /// The vendor STATUS reply: a CBOR map (docs/vendor-commands.md).
    func status() async -> [UInt8] {
        let prompt = await broker.pendingPrompt
        let status = DaemonStatus(
            version: DaemonInfo.currentVersion, pid: Int(info.pid), socket: info.socketPath, startedAt: info.startedAt,
            pending: prompt?.kind.rawValue ?? "none", promptID: prompt?.id, rpID: prompt?.rpID,
            profile: handler.profileName, presence: broker.modes?.presence.rawValue,
            uv: broker.modes?.verification.rawValue, desktopPrompt: broker.modes?.desktopPrompt)
        return status.cbor.encoded
    }
}
