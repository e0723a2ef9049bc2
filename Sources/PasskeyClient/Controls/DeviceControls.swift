import CBOR
import CTAP
import CTAPHID
import PasskeydMacros

/// passkeyd's test controls, typed (docs/testing-your-relying-party.md): faults to arm, list
/// and clear, and the stream of what the device does. Over the daemon's socket, through the
/// FAULT and WATCH vendor commands (docs/vendor-commands.md).
@MemberwiseInit
public struct DeviceControls: Sendable {
    /// The daemon's socket; vendor commands exist only there.
    public let transport: UnixSocketTransport

    /// Controls of the daemon behind `transport`.

    /// Arms a fault; returns every armed fault, oldest first.
    @discardableResult
    public func arm(_ rule: FaultRule) async throws(CTAP2Error) -> [FaultRule] {
        try await send(.set(rule))
    }

    /// Every armed fault, oldest first.
    public func armedFaults() async throws(CTAP2Error) -> [FaultRule] {
        try await send(.list)
    }

    /// Disarms every fault.
    public func clearFaults() async throws(CTAP2Error) {
        _ = try await send(.clear)
    }

    /// The device's events from the moment this returns (the daemon has confirmed the watch),
    /// until the consumer stops iterating or the daemon goes away (the stream then ends with
    /// `CTAP2Error.transport`). Uses its own connection.
    public func events() async throws(CTAP2Error) -> AsyncThrowingStream<DeviceEvent, any Error> {
        let watcher = UnixSocketTransport(path: transport.path)
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: DeviceEvent.self)
        let subscription = AsyncStream.makeStream(of: Void.self)
        let task = Task {
            do throws(TransportError) {
                try await watcher.subscribe(.watch, payload: [], subscribed: { subscription.continuation.finish() }) {
                    payload in
                    guard let event = try? DeviceEvent(bytes: payload) else { return }
                    continuation.yield(event)
                }
                continuation.finish()
            } catch {
                continuation.finish(throwing: CTAP2Error.transport(error))
            }
            subscription.continuation.finish()
        }
        continuation.onTermination = { _ in task.cancel() }
        // Returns once subscribed, or once the attempt failed (the stream then ends with why).
        for await _ in subscription.stream {}
        return stream
    }

    /// The run-time settings (CONTROLS `get`: user verification, automatic presence, response
    /// override bits, the next conditional answer).
    public func settings() async throws(CTAP2Error) -> ControlSettings {
        try await send(.get)
    }

    /// Changes what `change` names; returns the settings afterwards.
    @discardableResult
    public func apply(_ change: ControlSettings, clearConditional: Bool = false) async throws(CTAP2Error)
        -> ControlSettings
    {
        try await send(.set(change, clearConditional: clearConditional))
    }

    /// Every setting back to what the daemon's flags say; returns the settings afterwards.
    @discardableResult
    public func reset() async throws(CTAP2Error) -> ControlSettings {
        try await send(.reset)
    }

    /// The credential a test asked the next conditional request for `rpID` to be answered with,
    /// handed out once (CONTROLS `takeConditional`); nil when none was (the default). The browser
    /// host asks this when a conditional request arrives, and answers with that credential
    /// without waiting for the person's pick: what Chrome's virtual authenticator does unasked.
    public func takeConditionalAnswer(rpID: String) async throws(CTAP2Error) -> ConditionalAnswer? {
        try await send(.takeConditional(rpID: rpID)).conditional
    }

    private func send(_ command: ControlsCommand) async throws(CTAP2Error) -> ControlSettings {
        let reply: [UInt8]
        do { reply = try await transport.vendor(.controls, payload: command.cbor.encoded) } catch {
            throw .transport(error)
        }
        guard let status = reply.first.flatMap(CTAPStatus.init(rawValue:)) else { throw .malformedResponse }
        guard status == .success else { throw .status(status) }
        do { return try ControlSettings(cbor: try CBORDecoder.decode(Array(reply.dropFirst()))) } catch {
            throw .malformedResponse
        }
    }

    private func send(_ command: FaultCommand) async throws(CTAP2Error) -> [FaultRule] {
        let reply: [UInt8]
        do { reply = try await transport.vendor(.fault, payload: command.cbor.encoded) } catch {
            throw .transport(error)
        }
        guard let status = reply.first.flatMap(CTAPStatus.init(rawValue:)) else { throw .malformedResponse }
        guard status == .success else { throw .status(status) }
        do { return try FaultCommand.decodeReply(Array(reply.dropFirst())) } catch { throw .malformedResponse }
    }
}
