import CTAP

/// A transport straight onto an authenticator in the same process: no socket, no
/// framing, for fast tests. Task cancellation reaches the authenticator directly.
/// Each transport is its own caller, as each socket connection is.
public struct InProcessTransport: CTAPTransport {
    public let device: any CTAP2MessageHandler
    public let caller: CTAPCaller

    public init(device: any CTAP2MessageHandler, caller: CTAPCaller = .unique()) {
        self.device = device
        self.caller = caller
    }

    public func send(_ message: [UInt8], keepalive: @escaping @Sendable (KeepaliveStatus) -> Void) async throws(TransportError) -> [UInt8] {
        await device.handle(message, from: caller) { keepalive($0) }
    }

    public func replug() async throws(TransportError) {
        await device.powerCycle()
    }
}
