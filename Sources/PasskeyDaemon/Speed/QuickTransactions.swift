import CTAP
import CTAPHID

/// Which transactions run on their connection's event loop, and where such a transaction waits
/// for the store's flush: the seam of the executor speed mechanism (`EventLoopTaskExecutor`,
/// `LoopOccupancy`), which `CTAPHIDConnection` asks once per transaction. Off
/// (`PASSKEYD_SPEED_OFF=executor`), every transaction runs on the pool: the plain path.
struct QuickTransactions: Sendable {
    /// False: no transaction runs on the loop (`CTAPHIDServer.Configuration.quickTransactionsOnLoop`).
    var onLoop = true
    /// How many connections the loop serves; nil where nobody else can share it (a test's loop).
    var occupancy: LoopOccupancy?

    /// authenticatorGetAssertion, authenticatorGetInfo, authenticatorGetNextAssertion: one
    /// signature at most; authenticatorMakeCredential: a key and a signature, its one slow
    /// step (RSA key generation) leaving the loop by itself (`CredentialKey.generating`). So
    /// at most a few milliseconds on the event loop, and a registration is read, made and
    /// answered on one thread (2–3 context switches each against 14 on the pool, docs/benchmarks.md).
    /// Anything else (which may compute for long: a reset, a bio enrollment) runs on the pool,
    /// so the loop keeps sending keepalives (CTAP 2.1 §11.2.9.2.1).
    static let commands: Set<CTAPCommand> = [.getAssertion, .getInfo, .getNextAssertion, .makeCredential]

    /// Whether the transaction of this message runs on the connection's event loop.
    func runOnLoop(_ command: CTAPHIDCommand, payload: [UInt8]) -> Bool {
        onLoop && command == .cbor
            && payload.first.flatMap(CTAPCommand.init(rawValue:)).map(Self.commands.contains) == true
    }

    /// Whether a transaction running on the loop waits for the flush on the pool instead: when
    /// the loop serves other connections too, which the flush would hold up, and something is
    /// left to flush (`LoopOccupancy`).
    func waitForFlushOffLoop(_ handler: any CTAP2MessageHandler) -> Bool {
        occupancy?.isShared == true && !handler.isDurable
    }
}
