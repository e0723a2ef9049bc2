/// Something that answers CTAP2 messages, and CTAP1/U2F APDUs if it offers them: what a
/// transport (the CTAPHID server, the in-process client transport) hands its CTAPHID_CBOR
/// and CTAPHID_MSG payloads to.
///
/// A message is the command byte followed by its CBOR parameters; the answer is
/// a status byte followed by the CBOR response, if any (CTAP 2.1 §8.1).
/// Cancelling the calling task is how a transport relays CTAPHID_CANCEL.
public protocol CTAP2MessageHandler: Sendable {
    /// Answers one message from `caller`. `progress` hears what the device is doing,
    /// so the transport can say it in its keepalives (CTAP 2.1 §11.2.9.2.1). It runs on the
    /// caller's executor (`nonsending`): a report costs the handler no switch away and back,
    /// which for a task preferring an event loop is two jobs through the loop's queue.
    func handle(
        _ message: [UInt8], from caller: CTAPCaller,
        progress: nonisolated(nonsending) @escaping @Sendable (KeepaliveStatus) async -> Void
    ) async -> [UInt8]
    /// Answers like `handle`, but may return before what the command stored is durable, so
    /// the next command can run while the store flushes (group commit). The transport lets
    /// the answer out only after `durable()` returns true, and answers CTAP1_ERR_OTHER otherwise.
    func handleBeforeDurable(
        _ message: [UInt8], from caller: CTAPCaller,
        progress: nonisolated(nonsending) @escaping @Sendable (KeepaliveStatus) async -> Void
    ) async -> [UInt8]
    /// Returns once every answer given so far rests on durable state; false if the store
    /// could not make it durable.
    func durable() async -> Bool
    /// True when every answer given so far rests on durable state already: `durable()` would
    /// return at once. A transport that must not block its thread on a flush asks first.
    var isDurable: Bool { get }
    /// The caller is gone (its connection closed, or its channel was resynchronised):
    /// whatever it had started across commands ends.
    func release(_ caller: CTAPCaller) async
    /// Simulates unplugging and replugging the device: volatile state (PIN tokens,
    /// the reset window, consecutive wrong-PIN count, every caller's conversation)
    /// starts afresh.
    func powerCycle() async

    /// The protocols this handler answers; a transport offers the host only these.
    var protocols: CTAPProtocols { get }
    /// Whether a CTAPHID_CBOR message whose command byte is `byte` is one this handler answers:
    /// every one when it offers CTAP2; without CTAP2, none, or the test controls' own commands
    /// where a handler says so (a U2F-only profile with open test controls).
    func answersCBOR(command byte: UInt8) -> Bool
    /// The device profile it presents (`u2f`, `fido2.0`, `fido2.1`), when it has one.
    var profileName: String? { get }
    /// Answers one CTAP1/U2F command APDU (CTAP 2.1 §11.2.9.1.1 CTAPHID_MSG) with the
    /// response APDU: data, if any, then the status word.
    func handleAPDU(
        _ apdu: [UInt8], from caller: CTAPCaller,
        progress: nonisolated(nonsending) @escaping @Sendable (KeepaliveStatus) async -> Void
    ) async -> [UInt8]
}

extension CTAP2MessageHandler {
    /// CTAP2 only, unless a handler says otherwise.
    public var protocols: CTAPProtocols { .ctap2 }
    public func answersCBOR(command byte: UInt8) -> Bool { protocols.contains(.ctap2) }
    public var profileName: String? { nil }
    /// A handler without CTAP1 knows no instruction (ISO 7816-4 SW_INS_NOT_SUPPORTED).
    public func handleAPDU(
        _ apdu: [UInt8], from caller: CTAPCaller,
        progress: nonisolated(nonsending) @escaping @Sendable (KeepaliveStatus) async -> Void
    ) async -> [UInt8] {
        StatusWord.instructionNotSupported.bytes
    }
}

extension CTAP2MessageHandler {
    /// A handler whose answers are durable when `handle` returns.
    public func handleBeforeDurable(
        _ message: [UInt8], from caller: CTAPCaller,
        progress: nonisolated(nonsending) @escaping @Sendable (KeepaliveStatus) async -> Void
    ) async -> [UInt8] {
        await handle(message, from: caller, progress: progress)
    }

    public func durable() async -> Bool { true }
    public var isDurable: Bool { true }
}
