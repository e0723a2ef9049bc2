import PasskeydMacros

/// One enrolled fingerprint template, kept sealed in the device state (CTAP 2.1 §6.7). The
/// simulated sensor stores no biometric data: the template is its identifier and its name.
@MemberwiseInit
public struct EnrolledFingerprint: Sendable, Codable, Equatable {
    public var templateId: [UInt8]
    public var friendlyName: String?
}
