import CTAP

/// A way to reach an authenticator: one CTAP2 message in, one reply out.
///
/// Cancelling the calling task cancels the request on the device; the call
/// returns only once the device has answered (with `CTAP2_ERR_KEEPALIVE_CANCEL`
/// or the result it had already reached).
public protocol CTAPTransport: Sendable {
    /// Sends a CTAP2 message (command byte ‖ CBOR) and returns the reply (status ‖ CBOR).
    func send(_ message: [UInt8], keepalive: @escaping @Sendable (KeepaliveStatus) -> Void) async throws(TransportError)
        -> [UInt8]
    /// Simulated unplug/replug, where the transport can ask for one (passkeyd's REPLUG vendor command).
    func replug() async throws(TransportError)
    /// The protocols the authenticator says it answers, as CTAPHID_INIT's capability flags say
    /// it (CTAP 2.1 §11.2.9.1.3: CBOR set for CTAP2, NMSG clear for CTAP1/U2F). A transport
    /// that cannot tell answers `.ctap2`.
    func protocols() async throws(TransportError) -> CTAPProtocols
    /// Sends one CTAP1/U2F command APDU (CTAPHID_MSG, CTAP 2.1 §11.2.9.1.1) and returns the
    /// response APDU (data ‖ status word). `.unsupported` where the transport has no CTAPHID_MSG.
    func sendAPDU(_ apdu: [UInt8], keepalive: @escaping @Sendable (KeepaliveStatus) -> Void)
        async throws(TransportError) -> [UInt8]
}

extension CTAPTransport {
    /// CTAP2, unless the transport learns otherwise.
    public func protocols() async throws(TransportError) -> CTAPProtocols { .ctap2 }
    /// No CTAPHID_MSG, unless the transport has one.
    public func sendAPDU(_ apdu: [UInt8], keepalive: @escaping @Sendable (KeepaliveStatus) -> Void)
        async throws(TransportError) -> [UInt8]
    {
        throw .unsupported
    }
}

/// Why a message did not reach the authenticator or its answer did not come back.
public enum TransportError: Error, Sendable, Equatable {
    /// Nothing listens at the address: the daemon is not running.
    case unreachable(String)
    /// The socket is not provably our own daemon's (its folder, or the uid serving it):
    /// nothing was sent. The sentence names the path and what was found.
    case untrusted(String)
    /// The connection dropped mid-request.
    case disconnected
    /// No answer (or keepalive) within the timeout.
    case timeout
    /// The device answered at the framing level with a CTAPHID error code.
    case deviceError(UInt8)
    /// The device's reply did not follow the framing rules.
    case protocolViolation(String)
    /// The operation is not available on this transport.
    case unsupported
}
