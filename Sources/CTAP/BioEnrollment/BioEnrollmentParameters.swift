import CBOR
import PasskeydMacros

/// The `subCommandParams` map of authenticatorBioEnrollment (CTAP 2.1 §6.7).
@MemberwiseInit
public struct BioEnrollmentParameters: CTAPStructure, Sendable, Hashable {
    enum CodingKeys: Int, CodingKey {
        case templateId = 0x01
        case templateFriendlyName, timeoutMilliseconds
    }

    /// The template a capture continues, or a rename or removal names.
    public var templateId: [UInt8]?
    /// setFriendlyName's new name.
    public var templateFriendlyName: String?
    /// How long a capture waits for a finger; absent, the sensor's own timeout.
    @Unsigned public var timeoutMilliseconds: Int?
}
