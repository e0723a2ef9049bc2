import CBOR
import PasskeydMacros

/// The authenticatorBioEnrollment response (CTAP 2.1 §6.7). Which members are present depends on
/// the request; cancelCurrentEnrollment, setFriendlyName and removeEnrollment answer with no map.
@MemberwiseInit
public struct BioEnrollmentResponse: CTAPStructure, CTAPCommandResponse, Sendable, Hashable {
    enum CodingKeys: Int, CodingKey {
        case modality = 0x01
        case fingerprintKind, maxCaptureSamplesRequiredForEnroll, templateId
        case lastEnrollSampleStatus, remainingSamples, templateInfos, maxTemplateFriendlyName
    }

    public var modality: BioModality?
    public var fingerprintKind: FingerprintKind?
    /// The most good samples an enrollment takes.
    @Unsigned public var maxCaptureSamplesRequiredForEnroll: Int?
    /// The template enrollBegin started.
    public var templateId: [UInt8]?
    public var lastEnrollSampleStatus: LastEnrollSampleStatus?
    /// Good samples still needed; 0 once the template is enrolled.
    @Unsigned public var remainingSamples: Int?
    public var templateInfos: [TemplateInfo]?
    /// The longest friendly name kept, in bytes of UTF-8.
    @Unsigned public var maxTemplateFriendlyName: Int?
}
