import CBOR

/// The authenticatorBioEnrollment response (CTAP 2.1 §6.7). Which members are present depends on
/// the request; cancelCurrentEnrollment, setFriendlyName and removeEnrollment answer with no map.
public struct BioEnrollmentResponse: CTAPStructure, Sendable, Hashable {
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

    public init(
        modality: BioModality? = nil, fingerprintKind: FingerprintKind? = nil,
        maxCaptureSamplesRequiredForEnroll: Int? = nil,
        templateId: [UInt8]? = nil, lastEnrollSampleStatus: LastEnrollSampleStatus? = nil, remainingSamples: Int? = nil,
        templateInfos: [TemplateInfo]? = nil, maxTemplateFriendlyName: Int? = nil
    ) {
        self.modality = modality
        self.fingerprintKind = fingerprintKind
        self.maxCaptureSamplesRequiredForEnroll = maxCaptureSamplesRequiredForEnroll
        self.templateId = templateId
        self.lastEnrollSampleStatus = lastEnrollSampleStatus
        self.remainingSamples = remainingSamples
        self.templateInfos = templateInfos
        self.maxTemplateFriendlyName = maxTemplateFriendlyName
    }
}
