import CBOR
import CTAP
import Crypto
import Logging

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

    /// Loaded on first use, then kept in step with the store.
    var cachedDeviceState: DeviceState?
    /// When the device was last "plugged in" (CTAP 2.1 §6.6: reset is allowed only shortly after).
    var poweredUpAt: ContinuousClock.Instant
    /// Each caller's unfinished getNextAssertion run or credential enumeration.
    var conversations: [CTAPCaller: Conversation] = [:]
    /// Key agreement keys, the wrong-PIN streak and the pinUvAuthToken: gone at power-off.
    var pinUV = PINUVState()
    /// One command at a time, power cycles included.
    private var turns = TurnQueue()

    public init(
        store: any CredentialStore,
        presence: any UserPresence,
        verifier: (any UserVerifier)? = nil,
        configuration: Configuration = .init(),
        logger: Logger = Logger(label: "passkeyd.authenticator")
    ) {
        self.store = store
        self.presence = presence
        self.verifier = verifier
        self.configuration = configuration
        self.logger = logger
        self.poweredUpAt = configuration.now()
    }

    public func handle(_ message: [UInt8], from caller: CTAPCaller,
                       progress: @escaping @Sendable (KeepaliveStatus) async -> Void) async -> [UInt8] {
        await takeTurn()
        defer { endTurn() }
        let result = await Self.$progress.withValue(ProgressReport(report: progress)) { () async -> Result<CBORValue?, CTAPStatus> in
            do throws(CTAPStatus) { return .success(try await dispatch(message, from: caller)) } catch { return .failure(error) }
        }
        switch result {
        case .success(let response):
            return [CTAPStatus.success.rawValue] + (response?.encoded ?? [])
        case .failure(let status):
            logger.debug("command failed", metadata: ["command": "\(message.first ?? 0)", "status": "\(status)"])
            return [status.rawValue]
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
        poweredUpAt = configuration.now()
        conversations = [:]
        pinUV = PINUVState()
    }

    /// Where the running command reports that it waits for the user (CTAP 2.1 §11.2.9.2.1).
    @TaskLocal static var progress = ProgressReport { _ in }

    /// The transport's progress callback, wrapped: Swift 6.3.1 at -O miscompiles
    /// `withValue` on a task-local of function type (a null dereference in
    /// swift_task_localValuePush on every command of a release build; found by FuzzAuthenticator).
    struct ProgressReport: Sendable {
        let report: @Sendable (KeepaliveStatus) async -> Void

        func callAsFunction(_ status: KeepaliveStatus) async {
            await report(status)
        }
    }

    private func dispatch(_ message: [UInt8], from caller: CTAPCaller) async throws(CTAPStatus) -> CBORValue? {
        guard let byte = message.first else { throw .invalidLength }
        guard let command = CTAPCommand(rawValue: byte) else { throw .invalidCommand }
        // CTAP 2.1 §6.3, §6.8: the caller's next command continues its conversation or ends it.
        let conversation = takeConversation(of: caller)
        let parameters = Array(message.dropFirst())
        switch command {
        case .getInfo:
            return try await getInfo().cbor
        case .makeCredential:
            return try await makeCredential(MakeCredentialRequest(cbor: Self.decode(parameters))).cbor
        case .getAssertion:
            let (response, pending) = try await getAssertion(GetAssertionRequest(cbor: Self.decode(parameters)))
            conversations[caller] = pending.map(Conversation.assertions)
            return response.cbor
        case .getNextAssertion:
            guard var pending = conversation?.assertions else { throw .notAllowed }
            let response = try await getNextAssertion(&pending)
            conversations[caller] = pending.remaining.isEmpty ? nil : .assertions(pending)
            return response.cbor
        case .clientPIN:
            return try await clientPIN(ClientPINRequest(cbor: Self.decode(parameters)))?.cbor
        case .credentialManagement, .credentialManagementPreview:
            var enumeration = conversation?.credentialEnumeration
            let response = try await credentialManagement(CredentialManagementRequest(parameters: parameters), continuing: &enumeration)
            conversations[caller] = enumeration.map(Conversation.credentialEnumeration)
            return response?.cbor
        case .largeBlobs:
            var write = conversation?.largeBlobWrite
            let response = try await largeBlobs(LargeBlobsRequest(cbor: Self.decode(parameters)), continuing: &write)
            conversations[caller] = write.map(Conversation.largeBlobWrite)
            return response?.cbor
        case .config:
            try await authenticatorConfig(AuthenticatorConfigRequest(parameters: parameters))
            return nil
        case .reset:
            try await reset()
            return nil
        case .selection:
            try await selection()
            return nil
        default:
            throw .invalidCommand
        }
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

    /// Parameters of a command that takes them: one well-formed CBOR item (CTAP 2.1 §8).
    static func decode(_ parameters: [UInt8]) throws(CTAPStatus) -> CBORValue {
        do { return try CBORDecoder.decode(parameters) } catch { throw .invalidCBOR }
    }

    private func takeTurn() async {
        if !turns.tryEnter() { await withCheckedContinuation { turns.wait($0) } }
    }

    private func endTurn() {
        turns.leave()
    }
}
