/// authenticatorBioEnrollment subcommands for the fingerprint modality (CTAP 2.1 §6.7).
public enum BioEnrollmentSubcommand: UInt8, CTAPSubcommand, Sendable, Hashable, CaseIterable {
    // 0x01 to 0x07, in the table's order.
    case enrollBegin = 0x01
    case enrollCaptureNextSample, cancelCurrentEnrollment, enumerateEnrollments
    case setFriendlyName, removeEnrollment, getFingerprintSensorInfo

    /// Whether the subcommand carries a pinUvAuthParam with the `be` permission: cancelling and
    /// reading the sensor's description change nothing and reveal nothing (§6.7.3, §6.7.5).
    public var isAuthenticated: Bool {
        switch self {
        case .cancelCurrentEnrollment, .getFingerprintSensorInfo: false
        default: true
        }
    }
}
