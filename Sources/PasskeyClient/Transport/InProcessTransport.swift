import CTAP

/// A transport straight onto an authenticator in the same process: no socket, no
/// framing, for fast tests. Task cancellation reaches the authenticator directly.
public struct InProcessTransport: CTAPTransport {
    public let device: any CTAP2MessageHandler

    public init(device: any CTAP2MessageHandler) {
        self.device = device
    }

    public func send(_ message: [UInt8], keepalive: @escaping @Sendable (KeepaliveStatus) -> Void) async throws(TransportError) -> [UInt8] {
        await device.handle(message)
    }

    public func replug() async throws(TransportError) {
        await device.powerCycle()
    }
}
