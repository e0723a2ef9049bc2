/// The 17-byte payload of a CTAPHID_INIT response (CTAP 2.1 §11.2.9.1.3).
public struct CTAPHIDInitResponse: Sendable, Hashable {
    /// The host's 8-byte nonce, echoed so it can match the answer to its request.
    public var nonce: [UInt8]
    /// The channel the device allocated (or resynchronised).
    public var channel: UInt32
    /// The CTAPHID protocol version; 2 for CTAP 2.x.
    public var protocolVersion: UInt8
    public var majorVersion: UInt8
    public var minorVersion: UInt8
    public var buildVersion: UInt8
    public var capabilities: CTAPHIDCapabilities

    /// The length of an INIT request's payload (the nonce).
    public static let nonceLength = 8
    /// The length of the response payload.
    public static let length = 17

    public init(
        nonce: [UInt8], channel: UInt32, protocolVersion: UInt8 = 2, majorVersion: UInt8, minorVersion: UInt8,
        buildVersion: UInt8, capabilities: CTAPHIDCapabilities
    ) {
        self.nonce = nonce
        self.channel = channel
        self.protocolVersion = protocolVersion
        self.majorVersion = majorVersion
        self.minorVersion = minorVersion
        self.buildVersion = buildVersion
        self.capabilities = capabilities
    }

    /// Reads a response payload, as a host does. Nil unless it is at least 17 bytes.
    public init?(payload: [UInt8]) {
        guard payload.count >= Self.length else { return nil }
        nonce = Array(payload[0..<8])
        channel = UInt32(payload[8]) << 24 | UInt32(payload[9]) << 16 | UInt32(payload[10]) << 8 | UInt32(payload[11])
        protocolVersion = payload[12]
        majorVersion = payload[13]
        minorVersion = payload[14]
        buildVersion = payload[15]
        capabilities = CTAPHIDCapabilities(rawValue: payload[16])
    }

    public var payload: [UInt8] {
        nonce + [UInt8(channel >> 24), UInt8(channel >> 16 & 0xFF), UInt8(channel >> 8 & 0xFF), UInt8(channel & 0xFF)]
            + [protocolVersion, majorVersion, minorVersion, buildVersion, capabilities.rawValue]
    }
}
