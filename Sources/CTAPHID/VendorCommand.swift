/// passkeyd's vendor CTAPHID commands (CTAP 2.1 §11.2.9.3 reserves 0x40–0x7F).
/// Answered at once, even during a transaction. The daemon and its clients share these
/// codes; docs/vendor-commands.md describes them.
public enum VendorCommand: UInt8, Sendable, CaseIterable {
    /// Payload 1 byte (1 approve, 0 deny); answers the pending presence or UV prompt.
    /// Reply 1 byte: 1 if a prompt was pending, 0 otherwise.
    case presence = 0x50
    /// Simulates unplugging and replugging the device. Empty reply.
    case replug = 0x51
    /// Reply: a CBOR map describing the daemon.
    case status = 0x52
    /// Payload: a CBOR map arming, listing or clearing faults. Reply: the armed faults.
    case fault = 0x53
    /// Starts a stream of device events on the channel: an empty reply, then one message
    /// with this command byte per event until the connection closes.
    case watch = 0x54
    /// Payload: a CBOR map reading or changing the run-time test controls (user verification,
    /// automatic presence, response override bits, the next conditional answer). Reply: a
    /// status byte, then the settings afterwards.
    case controls = 0x55

    public var command: CTAPHIDCommand { CTAPHIDCommand(rawValue: rawValue) }

    /// PRESENCE's payload answering prompt `promptID` (as STATUS showed it): the answer byte,
    /// then the id in 8 bytes big-endian, so it never reaches a later prompt.
    public static func presencePayload(approve: Bool, promptID: UInt64) -> [UInt8] {
        [approve ? 1 : 0] + (0..<8).reversed().map { UInt8(truncatingIfNeeded: promptID >> ($0 * 8)) }
    }
}
