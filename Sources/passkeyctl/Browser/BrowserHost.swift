import Foundation
import PasskeyClient
import PasskeydLocal
import WebAuthn

/// The native-messaging host: one long-lived port per browser (`connectNative`), each request
/// a task of its own, so a conditional request waiting for the person does not hold up a
/// sign-in in another tab; `abort` cancels one. Every WebAuthn decision is `WebAuthnClient`'s
/// (RP ID and public suffix, mediation, client data, the DOMException names), over the user's
/// passkeyd socket; the origins come only from the request, which the extension's privileged
/// side fills from the message's sender (docs/browser-protocol.md).
actor BrowserHost {
    private let port: BrowserPort
    private let transports: TransportPool
    private let publicSuffixes: PublicSuffixList?
    private let choosers = Choosers()
    private var pending: [String: Task<Void, Never>] = [:]
    /// Who each pending request is for, counted against `PendingLimits`.
    private var owners: [String: PendingLimits.Owner] = [:]

    init(port: BrowserPort, socket: String) {
        self.port = port
        transports = TransportPool(socket: socket)
        // Read once for the port's life, not once per request.
        publicSuffixes = PublicSuffixList.system()
    }

    /// How the port ended.
    enum Ending: Equatable {
        /// The browser closed it between two messages.
        case closed
        /// The stream broke (a message cut short): it cannot be resynchronised.
        case broken(String)
    }

    /// Serves messages until the stream ends, then cancels what is still pending and waits for it.
    func serve(_ frames: AsyncStream<NativeMessaging.Frame>) async -> Ending {
        var ending = Ending.closed
        loop: for await frame in frames {
            switch frame {
            case .message(let bytes):
                await receive(bytes)
            case .end:
                break loop
            case .truncated(let expected, let got):
                ending = .broken("the stream ended inside a message (\(got) of \(expected) bytes)")
                break loop
            case .oversized(let length):
                // Its bytes were skipped, so the port carries on; no request is named, since none was parsed.
                port.send(
                    .error(
                        id: nil, name: WebAuthnError.Name.type.rawValue,
                        message:
                            "A message of \(length) bytes is over the host's limit of \(NativeMessaging.inboundLimit) bytes; it was discarded unread.",
                        unavailable: false))
            }
        }
        let remaining = Array(pending.values)
        for task in remaining { task.cancel() }
        for task in remaining { await task.value }
        return ending
    }

    /// One message: parsed at the edge, then answered, started as a ceremony, or applied.
    func receive(_ bytes: [UInt8]) async {
        let request: BrowserRequest
        do { request = try BrowserRequest(json: bytes) } catch {
            port.send(
                .error(id: error.id, name: WebAuthnError.Name.type.rawValue, message: error.message, unavailable: false)
            )
            return
        }
        switch request {
        case .abort(let target):
            // A request that already ended is no error: its answer and the abort crossed.
            pending[target]?.cancel()
        case .choice(let target, let answer):
            if let refusal = await choosers.answer(target, answer) {
                port.send(
                    .error(
                        id: nil, name: WebAuthnError.Name.type.rawValue, message: refusal.message, unavailable: false))
            }
        default:
            guard let id = request.id else { return }
            guard pending[id] == nil else {
                port.send(
                    .error(
                        id: id, name: WebAuthnError.Name.type.rawValue,
                        message: "A request with id \"\(id)\" is still pending on this port; ids must be unique.",
                        unavailable: false))
                return
            }
            let owner = PendingLimits.Owner(request)
            if let refusal = PendingLimits.refusal(for: owner, pending: owners.values) {
                port.send(.error(id: id, .notAllowed(refusal)))
                return
            }
            owners[id] = owner
            pending[id] = Task { [port] in
                port.send(await self.answer(request, id: id))
                self.finished(id)
            }
        }
    }

    private func finished(_ id: String) {
        pending[id] = nil
        owners[id] = nil
    }

    /// The reply to a request. A request aborted meanwhile ends with AbortError whatever it reached.
    private func answer(_ request: BrowserRequest, id: String) async -> HostMessage {
        let reply: HostMessage
        do throws(WebAuthnError) {
            reply = .result(id: id, try await perform(request, id: id))
        } catch {
            reply = .error(id: id, error)
        }
        if Task.isCancelled, case .result = reply {
            return .error(id: id, .abort("The request was aborted."))
        }
        return reply
    }

    private func perform(_ request: BrowserRequest, id: String) async throws(WebAuthnError) -> HostResult {
        switch request {
        case .create(let caller, let options):
            return .registration(
                try await client(for: caller, rpID: options.rp.id) { client throws(WebAuthnError) in
                    try await client.create(options)
                })
        case .get(let caller, let options, let mediation):
            let mode: Mediation
            switch mediation {
            case .optional: mode = .optional
            case .required: mode = .required
            case .conditional: mode = .conditional
            case .immediate: mode = .immediate
            case .silent:
                // Every assertion needs the person's presence (WebAuthn L3 §6.3.3 step 7), which silent mediation rules out.
                throw .notAllowed(
                    "A passkey cannot be used with silent mediation: signing in needs the person's presence.")
            }
            let result = try await client(for: caller, rpID: options.rpId) { client throws(WebAuthnError) in
                try await client.get(options, mediation: mode)
            }
            guard case .passkey(let assertion) = result else {
                throw .unknown("The host offered no passwords, yet a password was chosen.")
            }
            return .assertion(assertion)
        case .capabilities(let caller):
            return .capabilities(try await client(for: caller) { client in await client.getClientCapabilities() })
        case .signal(let caller, let signal):
            try await client(for: caller, rpID: signal.rpId) { client throws(WebAuthnError) in
                switch signal {
                case .unknownCredential(let options):
                    try await client.signalUnknownCredential(rpId: options.rpId, credentialId: options.credentialId)
                case .allAcceptedCredentials(let options):
                    try await client.signalAllAcceptedCredentials(
                        rpId: options.rpId, userId: options.userId,
                        allAcceptedCredentialIds: options.allAcceptedCredentialIds)
                case .currentUserDetails(let options):
                    try await client.signalCurrentUserDetails(
                        rpId: options.rpId, userId: options.userId, name: options.name, displayName: options.displayName
                    )
                }
            }
            return .empty
        case .ping:
            return .ping(version: PasskeydVersion.text, daemon: await transports.daemonAnswers())
        case .abort, .choice:
            throw .unknown("This message is not a request.")
        }
    }

    /// Runs `body` with a client for the caller's origins, over a transport of the pool. `rpID` is
    /// the one the request names; absent, it is the origin's effective domain (WebAuthn L3 §5.1.3
    /// step 8). It only labels the PIN dialog: the client checks it before any question is asked.
    private func client<T: Sendable>(
        for caller: BrowserRequest.Caller, rpID: String? = nil,
        _ body: (WebAuthnClient) async throws(WebAuthnError) -> T
    ) async throws(WebAuthnError) -> T {
        let shown = rpID ?? (try? Origin(caller.origin))?.host ?? caller.origin
        // The request holds a daemon connection only while it talks to the authenticator, never
        // while the person is asked (`CeremonyTransport`).
        let transport = CeremonyTransport(pool: transports)
        var browserAgent = BrowserUserAgent(request: caller.id, rpID: shown, port: port, choosers: choosers)
        browserAgent.armedConditionalAnswer = { [transports] rpID in
            let controls = DeviceControls(transport: await transports.take())
            let answer = try? await controls.takeConditionalAnswer(rpID: rpID)
            await transports.give(controls.transport)
            return answer?.credentialID
        }
        let agent = ReleasingUserAgent(inner: browserAgent, transport: transport)
        let outcome: Result<T, WebAuthnError>
        do throws(WebAuthnError) {
            let client = try WebAuthnClient(
                transport: transport, origin: caller.origin, topOrigin: caller.topOrigin,
                userAgent: agent, publicSuffixes: publicSuffixes)
            outcome = .success(try await body(client))
        } catch {
            outcome = .failure(error)
        }
        await transport.release()
        return try outcome.get()
    }
}
