/// Something that answers CTAP2 messages: what a transport (the CTAPHID server,
/// the in-process client transport) hands its CTAPHID_CBOR payloads to.
///
/// A message is the command byte followed by its CBOR parameters; the answer is
/// a status byte followed by the CBOR response, if any (CTAP 2.1 §8.1).
/// Cancelling the calling task is how a transport relays CTAPHID_CANCEL.
public protocol CTAP2MessageHandler: Sendable {
    func handle(_ message: [UInt8]) async -> [UInt8]
    /// Simulates unplugging and replugging the device: volatile state (PIN tokens,
    /// the reset window, consecutive wrong-PIN count) starts afresh.
    func powerCycle() async
}
