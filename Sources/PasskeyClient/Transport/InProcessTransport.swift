import CTAP

/// A transport straight onto an authenticator in the same process: no socket, no
/// framing, for fast tests. Task cancellation reaches the authenticator directly.
/// Each transport is its own caller, as each socket connection is.
public struct InProcessTransport: CTAPTransport {
    /// The authenticator every message goes to.
    public let device: any CTAP2MessageHandler
    /// Who this transport is to the authenticator: its conversations are this caller's.
    public let caller: CTAPCaller

    /// A transport onto `device`, as a caller of its own unless one is given.
    public init(device: any CTAP2MessageHandler, caller: CTAPCaller = .unique()) {
        self.device = device
        self.caller = caller
    }

    /// Hands the message to the authenticator and returns its answer; progress arrives as keepalives.
    public func send(_ message: [UInt8], keepalive: @escaping @Sendable (KeepaliveStatus) -> Void)
        async throws(TransportError) -> [UInt8]
    {
        await device.handle(message, from: caller) { keepalive($0) }
    }

    /// What the authenticator answers: its profile's protocols.
    public func protocols() async throws(TransportError) -> CTAPProtocols {
        device.protocols
    }

    /// Hands the APDU to the authenticator's CTAP1/U2F side (a CTAP2-only one answers SW_INS_NOT_SUPPORTED).
    public func sendAPDU(_ apdu: [UInt8], keepalive: @escaping @Sendable (KeepaliveStatus) -> Void)
        async throws(TransportError) -> [UInt8]
    {
        await device.handleAPDU(apdu, from: caller) { keepalive($0) }
    }

    /// Power-cycles the authenticator: its volatile state starts afresh.
    public func replug() async throws(TransportError) {
        await device.powerCycle()
    }
}
