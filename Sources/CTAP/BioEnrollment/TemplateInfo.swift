import CBOR
import PasskeydMacros

/// One enrolled fingerprint as enumerateEnrollments reports it (CTAP 2.1 §6.7.6).
@MemberwiseInit
public struct TemplateInfo: CTAPStructure, Sendable, Hashable {
    enum CodingKeys: Int, CodingKey {
        case templateId = 0x01
        case templateFriendlyName
    }

    public var templateId: [UInt8]
    public var templateFriendlyName: String?
}
