import CBOR
import CTAP

/// A command this authenticator answers: its request type bound to the spec steps that answer
/// it. `Authenticator.dispatch` finds it through `CTAPCommand.requestType`; adding a command
/// is its request type in `CTAP`, its steps, and this conformance (`CommandBindings.swift`).
protocol AuthenticatorCommand: CTAPCommandRequest {
    /// Parses the parameters as this device reads them: by default as the request type does;
    /// a profile's own rules (CTAP 2.0's stricter checks, a command it lacks) come first.
    static func parse(_ parameters: [UInt8], on authenticator: isolated Authenticator) throws(CTAPStatus) -> Self
    /// The relying party whose armed faults the command runs under (docs/faults.md); nil for
    /// the commands faults do not reach.
    func faultScope(_ context: CommandContext) -> String?
    /// Runs the command's steps; state that spans commands goes to `context.next`.
    func run(on authenticator: isolated Authenticator, _ context: inout CommandContext) async throws(CTAPStatus)
        -> Response
    /// What a test watching the device hears once the command succeeded; nil for nothing.
    /// Called only while someone watches.
    func event(answering response: Response, _ context: CommandContext) -> DeviceEvent?
}

extension AuthenticatorCommand {
    static func parse(_ parameters: [UInt8], on authenticator: isolated Authenticator) throws(CTAPStatus) -> Self {
        try Self(parameters: parameters)
    }

    func faultScope(_ context: CommandContext) -> String? { nil }
    func event(answering response: Response, _ context: CommandContext) -> DeviceEvent? { nil }
}

/// What one command runs with besides its request.
struct CommandContext {
    /// The code it came under (a CTAP 2.1-PRE code shares its command's request).
    let command: CTAPCommand
    let caller: CTAPCaller
    /// The caller's conversation, taken: the command continues it through `next` or it ends.
    let conversation: Conversation?
    /// The caller's conversation after the command, kept only if it succeeds.
    var next: Conversation?
    /// The credential a vendor command changed, for its event.
    var changed: CredentialSource?
}

extension Authenticator {
    /// Each command code's binding, by its byte; nil for codes this authenticator does not know.
    static let commands: [(any AuthenticatorCommand.Type)?] = (0...UInt8.max).map { byte in
        CTAPCommand(rawValue: byte)?.requestType as? any AuthenticatorCommand.Type
    }

    /// Parses, runs and answers one command. The test controls act here and only here: the
    /// armed faults around the steps (`underFaults`), the event after them.
    func answer<Request: AuthenticatorCommand>(
        _: Request.Type, _ parameters: [UInt8],
        _ context: inout CommandContext
    ) async throws(CTAPStatus) -> [UInt8] {
        let request = try Request.parse(parameters, on: self)
        let scope = request.faultScope(context)
        let response = try await underFaults(rpID: scope, caller: context.caller) { () async throws(CTAPStatus) in
            try await request.run(on: self, &context)
        }
        conversations[context.caller] = context.next
        let finished = context
        await controls.announce(request.event(answering: response, finished))
        var writer = CBORWriter(prefix: [CTAPStatus.success.rawValue], capacity: 256)
        response.encode(into: &writer)
        return writer.bytes
    }
}
