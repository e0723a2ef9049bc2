import CTAP

/// The simulated fingerprint reader (`passkeyd --bio`): what getFingerprintSensorInfo reports
/// (CTAP 2.1 §6.7.3) and the limits enrollment keeps to. Whether a finger is presented, and
/// whether it reads well or matches, is the `UserVerifier`'s answer (`--uv auto|prompt|deny`).
public struct FingerprintSensor: Sendable, Hashable {
    public var kind: FingerprintKind = .touch
    /// Good samples one enrollment takes (maxCaptureSamplesRequiredForEnroll).
    public var samplesPerEnrollment = 4
    /// The longest friendly name kept, in bytes of UTF-8 (maxTemplateFriendlyName).
    public var maxTemplateFriendlyName = 64
    /// Templates kept at once; enrollBegin beyond them is CTAP2_ERR_FP_DATABASE_FULL.
    public var maxEnrollments = 5
    /// How long a capture waits for a finger when the platform names no timeoutMilliseconds.
    public var captureTimeout: Duration = .seconds(30)

    /// getInfo `uvModality` (CTAP 2.1 §6.4): USER_VERIFY_FINGERPRINT_INTERNAL of the FIDO Registry
    /// of Predefined Values §3.1.
    public static let uvModality = 0x02

    public init() {}
}
