import CBOR
import CTAP
import Crypto
import Logging
import PasskeydConcurrency

/// The authenticator: CTAP 2.1's authenticator API (CTAP 2.1 §6) as an actor over a
/// pluggable credential store and injected user presence and verification.
///
/// Transports hand it whole CTAP2 messages through `handle(_:from:progress:)`, saying who
/// is asking. Commands run one at a time, as on a device; state that spans commands is a
/// `Conversation` of the caller that began it. Cancelling the calling task relays CTAPHID_CANCEL.
public actor Authenticator: CTAP2MessageHandler {
    let store: any CredentialStore
    let presence: any UserPresence
    let verifier: (any UserVerifier)?
    let configuration: Configuration
    let logger: Logger
    /// Armed faults and watchers (docs/testing-your-relying-party.md); inert unless a test uses them.
    public let controls: TestControls

    /// Loaded on first use, then kept in step with the store.
    var cachedDeviceState: DeviceState?
    /// Signature counts handed out below their durable marks (none survive a restart).
    var counterLeases = SignatureCounterLeases()
    /// When the device was last "plugged in" (CTAP 2.1 §6.6: reset is allowed only shortly after).
    var poweredUpAt: ContinuousClock.Instant
    /// Each caller's unfinished getNextAssertion run or credential enumeration.
    var conversations: [CTAPCaller: Conversation] = [:]
    /// Key agreement keys, the wrong-PIN streak and the pinUvAuthToken: gone at power-off.
    var pinUV = PinUvState()
    /// One command at a time, power cycles included.
    private var turns = TurnQueue()

    public init(
        store: any CredentialStore,
        presence: any UserPresence,
        verifier: (any UserVerifier)? = nil,
        configuration: Configuration = .init(),
        logger: Logger = Logger(label: "passkeyd.authenticator"),
        controls: TestControls = TestControls()
    ) {
        self.controls = controls
        self.store = store
        self.presence = presence
        self.verifier = verifier
        self.configuration = configuration
        self.logger = logger
        self.poweredUpAt = configuration.now()
    }

    public func handle(
        _ message: [UInt8], from caller: CTAPCaller,
        progress: nonisolated(nonsending) @escaping @Sendable (KeepaliveStatus) async -> Void
    ) async -> [UInt8] {
        let answer = await handleBeforeDurable(message, from: caller, progress: progress)
        return await durable() ? answer : [CTAPStatus.other.rawValue]
    }

    /// The command runs in its turn; the store's flush of what it saved is left to
    /// `durable()`, which the next command need not wait for.
    public func handleBeforeDurable(
        _ message: [UInt8], from caller: CTAPCaller,
        progress: nonisolated(nonsending) @escaping @Sendable (KeepaliveStatus) async -> Void
    ) async -> [UInt8] {
        let result = await inTurn(progress: progress) { () async throws(CTAPStatus) in
            try await dispatch(message, from: caller)
        }
        switch result {
        case .success(let answer):
            return answer
        case .failure(let status):
            logger.debug("command failed", metadata: ["command": "\(message.first ?? 0)", "status": "\(status)"])
            return [status.rawValue]
        }
    }

    public nonisolated var protocols: CTAPProtocols { configuration.profile.protocols }

    /// Every CTAP2 command where the profile offers CTAP2; on a U2F-only profile, passkeyd's own
    /// vendor commands alone, and only under open test controls (`--open-test-controls`), so a
    /// test suite lists, imports and removes credentials as Chrome's virtual U2F authenticator
    /// lets it. The INIT capabilities still offer no CBOR: a host stack sees a U2F-only key.
    public nonisolated func answersCBOR(command byte: UInt8) -> Bool {
        if protocols.contains(.ctap2) { return true }
        return controls.admitsTokenlessCredentialControls
            && CTAPCommand(rawValue: byte)?.isPasskeydVendorCommand == true
    }

    public nonisolated var profileName: String? { configuration.profile.name }

    public nonisolated var isDurable: Bool { store.isDurable }

    /// Nonisolated: the answer waits on the store alone, not on a turn of this actor (for the
    /// daemon's transaction, two executor switches fewer per command).
    public nonisolated func durable() async -> Bool {
        do throws(CredentialStoreError) {
            try await store.durable()
            return true
        } catch {
            _ = storeFailure(error)
            return false
        }
    }

    public func release(_ caller: CTAPCaller) {
        conversations[caller] = nil
    }

    /// A power cycle takes its turn like a command: one that runs in the middle of a
    /// command's awaits would let that command write into the fresh state afterwards.
    public func powerCycle() async {
        await takeTurn()
        defer { endTurn() }
        powerUp()
    }

    /// Volatile state starts afresh, as when the device is plugged in.
    func powerUp() {
        poweredUpAt = configuration.now()
        conversations = [:]
        pinUV = PinUvState()
    }

    /// Where the running command reports that it waits for the user (CTAP 2.1 §11.2.9.2.1).
    @TaskLocal static var progress = ProgressReport { _ in }

    /// The transport's progress callback, wrapped: Swift 6.3.1 at -O miscompiles
    /// `withValue` on a task-local of function type (a null dereference in
    /// swift_task_localValuePush on every command of a release build; found by FuzzAuthenticator).
    struct ProgressReport: Sendable {
        let report: nonisolated(nonsending) @Sendable (KeepaliveStatus) async -> Void

        nonisolated(nonsending) func callAsFunction(_ status: KeepaliveStatus) async {
            await report(status)
        }
    }

    /// The status byte and the response of a command the profile offers (CTAP 2.1 §8.1).
    private func dispatch(_ message: [UInt8], from caller: CTAPCaller) async throws(CTAPStatus) -> [UInt8] {
        guard let byte = message.first else { throw .invalidLength }
        // A U2F-only profile answers no CTAP2 command (but the test controls' own, `answersCBOR`);
        // an older one lacks the newer commands.
        guard let command = CTAPCommand(rawValue: byte), answersCBOR(command: byte),
            !configuration.rules.withheldCommands.contains(command), let binding = Self.commands[Int(byte)]
        else { throw .invalidCommand }
        // CTAP 2.1 §6.3, §6.8: the caller's next command continues its conversation or ends it.
        var context = CommandContext(command: command, caller: caller, conversation: takeConversation(of: caller))
        return try await answer(binding, Array(message.dropFirst()), &context)
    }

    /// Removes and returns the caller's conversation if it has not lapsed; lapsed ones of
    /// callers that never came back go too, so abandoned state cannot pile up.
    private func takeConversation(of caller: CTAPCaller) -> Conversation? {
        let now = configuration.now()
        let conversation = conversations.removeValue(forKey: caller)
        conversations = conversations.filter { !$0.value.hasLapsed(at: now, configuration) }
        guard let conversation, !conversation.hasLapsed(at: now, configuration) else { return nil }
        return conversation
    }

    /// Runs `body` in the next turn, with the transport's `progress` at hand for the steps that
    /// wait on the user; a failure comes back as a value, for the transport's answer.
    func inTurn<Success, Failure: Error>(
        progress: nonisolated(nonsending) @escaping @Sendable (KeepaliveStatus) async -> Void,
        _ body: () async throws(Failure) -> Success
    ) async -> Result<Success, Failure> {
        await takeTurn()
        defer { endTurn() }
        return await Self.$progress.withValue(ProgressReport(report: progress)) {
            () async -> Result<Success, Failure> in
            do throws(Failure) { return .success(try await body()) } catch { return .failure(error) }
        }
    }

    func takeTurn() async {
        if !turns.tryEnter() { await withCheckedContinuation { turns.wait($0) } }
    }

    func endTurn() {
        turns.leave()
    }
}
