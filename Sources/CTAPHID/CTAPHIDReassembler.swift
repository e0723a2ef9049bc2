/// Puts CTAPHID packets back together into messages, enforcing the transaction
/// rules of CTAP 2.1 §11.2.4: one message in reception at a time, sequence
/// numbers counting up from 0, lengths within the 7609-byte limit.
///
/// Used by the device for each open handle, and by a host for the responses on
/// its own channel (`onlyChannel`). It keeps no clock: whoever feeds it calls
/// `abandon()` when an incomplete message has waited too long (`ERR_MSG_TIMEOUT`).
public struct CTAPHIDReassembler: Sendable {
    /// What one packet did.
    public enum Outcome: Sendable, Equatable {
        /// The packet started or continued a message that is not yet complete.
        case incomplete
        /// A message is complete.
        case complete(CTAPHIDMessage)
        /// The packet is to be dropped without an answer: a continuation packet
        /// outside any message (§11.2.4: spurious continuation packets are
        /// ignored), or a packet for another channel when `onlyChannel` is set.
        case ignored
        /// The packet broke a rule; `channel` is owed a CTAPHID_ERROR with `error`.
        case failed(channel: UInt32, error: CTAPHIDError)
    }

    private struct Partial: Sendable {
        var channel: UInt32
        var command: CTAPHIDCommand
        var length: Int
        var payload: [UInt8]
        var nextSequence: UInt8
        /// An INIT arrived on another channel since this message began: a host (re)started,
        /// so the next new message takes the device instead of meeting ERR_CHANNEL_BUSY.
        var superseded = false
    }

    private var partial: Partial?
    /// When set, packets on other channels are ignored rather than judged.
    public let onlyChannel: UInt32?

    public init(onlyChannel: UInt32? = nil) {
        self.onlyChannel = onlyChannel
    }

    /// The channel whose message is being received, if one is.
    public var receivingChannel: UInt32? { partial?.channel }

    /// Drops the message in reception, if any, returning its channel
    /// (which is owed `ERR_MSG_TIMEOUT` when this is a timeout).
    @discardableResult
    public mutating func abandon() -> UInt32? {
        defer { partial = nil }
        return partial?.channel
    }

    public mutating func accept(_ packet: CTAPHIDPacket) -> Outcome {
        if let onlyChannel, packet.channel != onlyChannel { return .ignored }
        switch packet {
        case .initialization(let channel, let command, let length, let data):
            if let current = partial {
                if command == .`init` {
                    // §11.2.9.1.3: INIT is answered at any time; on the channel in
                    // reception it aborts that message (resynchronisation). On another
                    // channel the message may still finish, until a new one needs the device.
                    if current.channel == channel { partial = nil } else { partial?.superseded = true }
                } else if current.channel == channel {
                    // An initialization packet where a continuation was due.
                    partial = nil
                    return .failed(channel: channel, error: .invalidSequence)
                } else if current.superseded {
                    // A message left unfinished before some host's INIT is abandoned, not left
                    // holding the device until it times out (no CHANNEL_BUSY left over).
                    partial = nil
                } else {
                    return .failed(channel: channel, error: .channelBusy)
                }
            }
            let length = Int(length)
            guard length <= CTAPHIDPacket.maxMessageLength else {
                return .failed(channel: channel, error: .invalidLength)
            }
            if length <= CTAPHIDPacket.initializationCapacity {
                return .complete(
                    CTAPHIDMessage(channel: channel, command: command, payload: Array(data.prefix(length))))
            }
            if command == .`init`, partial != nil {
                // An INIT that needs continuation packets while another channel is receiving cannot be honoured.
                return .failed(channel: channel, error: .channelBusy)
            }
            partial = Partial(channel: channel, command: command, length: length, payload: data, nextSequence: 0)
            return .incomplete

        case .continuation(let channel, let sequence, let data):
            guard var current = partial, current.channel == channel else { return .ignored }
            // Taken out while it grows, so appending does not copy the payload received so far.
            partial = nil
            guard sequence == current.nextSequence else {
                return .failed(channel: channel, error: .invalidSequence)
            }
            let needed = current.length - current.payload.count
            current.payload += data.prefix(needed)
            current.nextSequence += 1
            if current.payload.count == current.length {
                return .complete(CTAPHIDMessage(channel: channel, command: current.command, payload: current.payload))
            }
            partial = current
            return .incomplete
        }
    }
}
