import CBOR
import CTAP

/// Typed CTAP2 commands over any transport: what a platform and `passkeyctl` both speak.
public struct CTAP2Session: Sendable {
    public let transport: any CTAPTransport
    /// Receives keepalive statuses, e.g. to show "touch your authenticator".
    public let onKeepalive: @Sendable (KeepaliveStatus) -> Void

    public init(transport: any CTAPTransport, onKeepalive: @escaping @Sendable (KeepaliveStatus) -> Void = { _ in }) {
        self.transport = transport
        self.onKeepalive = onKeepalive
    }

    /// Sends a command and returns its CBOR body (nil for commands that answer only a status).
    public func send(_ command: CTAPCommand, _ parameters: CBORValue? = nil) async throws(CTAP2Error) -> CBORValue? {
        let reply: [UInt8]
        do {
            reply = try await transport.send([command.rawValue] + (parameters?.encoded ?? []), keepalive: onKeepalive)
        } catch {
            throw .transport(error)
        }
        guard let first = reply.first else { throw .malformedResponse }
        guard let status = CTAPStatus(rawValue: first) else { throw .status(.other) }
        guard status == .success else { throw .status(status) }
        guard reply.count > 1 else { return nil }
        do { return try CBORDecoder.decode(Array(reply.dropFirst())) } catch { throw .malformedResponse }
    }

    /// Sends a command whose success carries a response map, and parses it.
    func request<Response>(
        _ command: CTAPCommand, _ parameters: CBORValue?, as parse: (CBORValue) throws(CTAPStatus) -> Response
    ) async throws(CTAP2Error) -> Response {
        guard let body = try await send(command, parameters) else { throw .malformedResponse }
        do { return try parse(body) } catch { throw .malformedResponse }
    }

    /// Sends a command's request and parses its answer as the command's response type.
    public func call<Request: CTAPCommandRequest>(_ request: Request) async throws(CTAP2Error) -> Request.Response {
        let body = try await send(Request.command, request.commandParameters)
        do { return try Request.Response(body: body) } catch { throw .malformedResponse }
    }

    public func getInfo() async throws(CTAP2Error) -> GetInfoResponse {
        try await call(GetInfoRequest())
    }

    public func makeCredential(_ request: MakeCredentialRequest) async throws(CTAP2Error) -> MakeCredentialResponse {
        try await call(request)
    }

    public func getAssertion(_ request: GetAssertionRequest) async throws(CTAP2Error) -> GetAssertionResponse {
        try await call(request)
    }

    public func getNextAssertion() async throws(CTAP2Error) -> GetAssertionResponse {
        try await call(GetNextAssertionRequest())
    }

    /// getAssertion followed by getNextAssertion for every further account (CTAP 2.1 §6.3).
    public func getAllAssertions(_ request: GetAssertionRequest) async throws(CTAP2Error) -> [GetAssertionResponse] {
        let first = try await getAssertion(request)
        var all = [first]
        for _ in 1..<max(1, first.numberOfCredentials ?? 1) {
            all.append(try await getNextAssertion())
        }
        return all
    }

    public func reset() async throws(CTAP2Error) {
        _ = try await call(ResetRequest())
    }

    public func selection() async throws(CTAP2Error) {
        _ = try await call(SelectionRequest())
    }
}
