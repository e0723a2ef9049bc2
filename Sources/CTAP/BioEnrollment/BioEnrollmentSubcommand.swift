/// authenticatorBioEnrollment subcommands for the fingerprint modality (CTAP 2.1 §6.7).
public enum BioEnrollmentSubcommand: UInt8, CTAPSubcommand, Sendable, Hashable, CaseIterable {
    case enrollBegin = 0x01
    case enrollCaptureNextSample = 0x02
    case cancelCurrentEnrollment = 0x03
    case enumerateEnrollments = 0x04
    case setFriendlyName = 0x05
    case removeEnrollment = 0x06
    case getFingerprintSensorInfo = 0x07

    /// Whether the subcommand carries a pinUvAuthParam with the `be` permission: cancelling and
    /// reading the sensor's description change nothing and reveal nothing (§6.7.3, §6.7.5).
    public var isAuthenticated: Bool {
        switch self {
        case .cancelCurrentEnrollment, .getFingerprintSensorInfo: false
        default: true
        }
    }
}
