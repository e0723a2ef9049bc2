import CBOR
import Testing

@testable import CTAP

@Suite("authenticatorBioEnrollment messages")
struct BioEnrollmentMessageTests {
    static let requests: [BioEnrollmentRequest] = [
        BioEnrollmentRequest(modality: nil, getModality: true),
        BioEnrollmentRequest(subCommand: .getFingerprintSensorInfo),
        BioEnrollmentRequest(
            subCommand: .enrollBegin, subCommandParams: BioEnrollmentParameters(timeoutMilliseconds: 10_000),
            pinUvAuthProtocol: 2, pinUvAuthParam: [UInt8](repeating: 1, count: 32)),
        BioEnrollmentRequest(
            subCommand: .setFriendlyName,
            subCommandParams: BioEnrollmentParameters(templateId: [1, 2], templateFriendlyName: "Left"),
            pinUvAuthProtocol: 1, pinUvAuthParam: [UInt8](repeating: 2, count: 16))
    ]

    @Test(arguments: requests)
    func requestsRoundTrip(request: BioEnrollmentRequest) throws {
        #expect(try BioEnrollmentRequest(parameters: request.cbor.encoded) == request)
    }

    @Test func theRequestSaysWhatItAsks() throws {
        #expect(try BioEnrollmentRequest(cbor: [0x06: true]).action() == .getModality)
        #expect(
            try BioEnrollmentRequest(cbor: [0x01: 1, 0x02: 4]).action()
                == .subcommand(.fingerprint, .enumerateEnrollments))
        #expect(throws: CTAPStatus.missingParameter) { try BioEnrollmentRequest(cbor: [:]).action() }
        #expect(throws: CTAPStatus.missingParameter) { try BioEnrollmentRequest(cbor: [0x02: 7]).action() }
        #expect(throws: CTAPStatus.missingParameter) { try BioEnrollmentRequest(cbor: [0x06: false]).action() }
    }

    @Test func theAuthenticatedMessageIsModalitySubcommandAndTheParametersAsSent() throws {
        // CTAP 2.1 §6.7.4: fingerprint (0x01) ‖ enrollBegin (0x01) ‖ {3: 10000}.
        let begin = BioEnrollmentRequest(
            subCommand: .enrollBegin, subCommandParams: BioEnrollmentParameters(timeoutMilliseconds: 10_000))
        #expect(begin.authenticatedMessage == [0x01, 0x01, 0xA1, 0x03, 0x19, 0x27, 0x10])
        // {1: 1, 2: 6, 3: {1: h'AA'}} with the inner key written non-shortest (0x18 0x01).
        let wire: [UInt8] = [0xA3, 0x01, 0x01, 0x02, 0x06, 0x03, 0xA1, 0x18, 0x01, 0x41, 0xAA]
        let request = try BioEnrollmentRequest(parameters: wire)
        #expect(request.subCommandParams?.templateId == [0xAA])
        #expect(request.authenticatedMessage == [0x01, 0x06, 0xA1, 0x18, 0x01, 0x41, 0xAA])
    }

    @Test func malformedRequestsAreRefusedWithTheirStatus() throws {
        #expect(throws: CTAPStatus.invalidSubcommand) { try BioEnrollmentRequest(cbor: [0x01: 1, 0x02: 0x08]) }
        #expect(throws: CTAPStatus.invalidParameter) { try BioEnrollmentRequest(cbor: [0x01: 2, 0x02: 0x07]) }
        #expect(throws: CTAPStatus.cborUnexpectedType) { try BioEnrollmentRequest(cbor: [0x01: "fingerprint"]) }
        #expect(throws: CTAPStatus.cborUnexpectedType) {
            try BioEnrollmentRequest(cbor: [0x01: 1, 0x02: 5, 0x03: [0x02: 7]])
        }
        #expect(throws: CTAPStatus.cborUnexpectedType) {
            try BioEnrollmentRequest(cbor: [0x01: 1, 0x02: 1, 0x03: [0x03: -1]])
        }
        #expect(throws: CTAPStatus.invalidCBOR) { try BioEnrollmentRequest(parameters: [0xA1, 0x01]) }
    }

    @Test func responsesRoundTripWithTheSpecsKeys() throws {
        let responses = [
            BioEnrollmentResponse(
                modality: .fingerprint, fingerprintKind: .touch, maxCaptureSamplesRequiredForEnroll: 4,
                maxTemplateFriendlyName: 64),
            BioEnrollmentResponse(templateId: [1, 2], lastEnrollSampleStatus: .good, remainingSamples: 3),
            BioEnrollmentResponse(templateInfos: [
                TemplateInfo(templateId: [1], templateFriendlyName: "Left"), TemplateInfo(templateId: [2])
            ])
        ]
        for response in responses {
            #expect(try BioEnrollmentResponse(cbor: CBORDecoder.decode(response.cbor.encoded)) == response)
        }
        // {4: h'0102', 5: 0, 6: 3}
        #expect(responses[1].cbor.encoded == [0xA3, 0x04, 0x42, 0x01, 0x02, 0x05, 0x00, 0x06, 0x03])
        #expect(LastEnrollSampleStatus.poorQuality.rawValue == 0x07)
    }
}
