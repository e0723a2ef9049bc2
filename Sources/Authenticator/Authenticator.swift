import CBOR
import CTAP
import Crypto
import Logging

/// The authenticator: CTAP 2.1's authenticator API (CTAP 2.1 §6) as an actor over a
/// pluggable credential store and injected user presence and verification.
///
/// Transports hand it whole CTAP2 messages through `handle(_:)`. Commands run one at
/// a time, as on a device; cancelling the calling task relays CTAPHID_CANCEL.
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
    /// Credentials still to be returned by authenticatorGetNextAssertion.
    var pendingAssertions: PendingAssertions?
    /// Key agreement keys, the wrong-PIN streak and the pinUvAuthToken: gone at power-off.
    var pinUV = PINUVState()
    /// Where a credential management enumeration has got to (CTAP 2.1 §6.8.3, §6.8.5).
    var credentialEnumeration: CredentialEnumeration?

    private var transactions = TransactionQueue()

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

    public func handle(_ message: [UInt8]) async -> [UInt8] {
        await beginTransaction()
        defer { endTransaction() }
        do {
            let response = try await dispatch(message)
            return [CTAPStatus.success.rawValue] + (response?.encoded ?? [])
        } catch {
            logger.debug("command failed", metadata: ["command": "\(message.first ?? 0)", "status": "\(error)"])
            return [error.rawValue]
        }
    }

    /// A power cycle takes its turn like a command: one that runs in the middle of a
    /// command's awaits would let that command write into the fresh state afterwards.
    public func powerCycle() async {
        await beginTransaction()
        defer { endTransaction() }
        poweredUpAt = configuration.now()
        pendingAssertions = nil
        pinUV = PINUVState()
        credentialEnumeration = nil
    }

    private func dispatch(_ message: [UInt8]) async throws(CTAPStatus) -> CBORValue? {
        guard let byte = message.first else { throw .invalidLength }
        guard let command = CTAPCommand(rawValue: byte) else { throw .invalidCommand }
        // CTAP 2.1 §6.3: any command but getNextAssertion discards the remaining assertions.
        if command != .getNextAssertion { pendingAssertions = nil }
        // Likewise an enumeration continues only through credential management's GetNext subcommands.
        if command != .credentialManagement, command != .credentialManagementPreview { credentialEnumeration = nil }
        let parameters = Array(message.dropFirst())
        switch command {
        case .getInfo:
            return try await getInfo().cbor
        case .makeCredential:
            return try await makeCredential(MakeCredentialRequest(cbor: Self.decode(parameters))).cbor
        case .getAssertion:
            return try await getAssertion(GetAssertionRequest(cbor: Self.decode(parameters))).cbor
        case .getNextAssertion:
            return try await getNextAssertion().cbor
        case .clientPIN:
            return try await clientPIN(ClientPINRequest(cbor: Self.decode(parameters)))?.cbor
        case .credentialManagement, .credentialManagementPreview:
            return try await credentialManagement(CredentialManagementRequest(parameters: parameters))?.cbor
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

    /// Parameters of a command that takes them: one well-formed CBOR item (CTAP 2.1 §8).
    static func decode(_ parameters: [UInt8]) throws(CTAPStatus) -> CBORValue {
        do { return try CBORDecoder.decode(parameters) } catch { throw .invalidCBOR }
    }

    private func beginTransaction() async {
        if !transactions.tryEnter() { await withCheckedContinuation { transactions.wait($0) } }
    }

    private func endTransaction() {
        transactions.leave()
    }
}
