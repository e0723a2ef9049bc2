import CBOR
import CTAP
import Testing

@testable import Authenticator
@testable import PasskeyClient

/// authenticatorBioEnrollment (CTAP 2.1 §6.7) on the simulated fingerprint reader, and how
/// enrolled fingerprints configure built-in UV.
struct BioEnrollmentTests {
    static func reader(
        _ script: [VerificationOutcome] = [.verified], samples: Int = 3,
        store: InMemoryCredentialStore? = nil
    ) -> Harness {
        Harness(verifier: ScriptedVerifier(script), store: store) {
            var sensor = FingerprintSensor()
            sensor.samplesPerEnrollment = samples
            sensor.maxEnrollments = 2
            $0.fingerprintSensor = sensor
        }
    }

    /// A `be` session on a device whose PIN is set.
    static func session(_ h: Harness) async throws -> BioEnrollmentSession {
        let platform = PlatformPIN(h, .two)
        if try await platform.info().options["clientPin"] != true {
            try #require(try await platform.setPIN(PlatformPIN.testPIN) == .success)
        }
        let token = try await platform.grantedToken(pin: PlatformPIN.testPIN, permissions: .be)
        let session = CTAP2Session(transport: InProcessTransport(device: h.authenticator))
        return try BioEnrollmentSession(session: session, token: token, info: try await platform.info())
    }

    static func enroll(_ bio: BioEnrollmentSession) async throws -> [UInt8] {
        var capture = try await bio.enrollBegin()
        while capture.remainingSamples > 0 {
            capture = try await bio.enrollCaptureNextSample(templateId: capture.templateId)
        }
        return capture.templateId
    }

    @Test func theReaderIsAdvertisedAndUVWaitsForAFinger() async throws {
        let h = Self.reader()
        let info = try await PlatformPIN(h, .two).info()
        #expect(info.options["bioEnroll"] == false)
        #expect(info.options["uv"] == false, "a reader with nothing enrolled cannot verify anyone")
        #expect(info.uvModality == FingerprintSensor.uvModality)
        // Without a finger enrolled, a uv request is what it is on a device without built-in UV.
        #expect(try await h.status(of: .makeCredential, Fixture.makeCredential(uv: true).cbor) == .invalidOption)
        #expect(try await PlatformPIN(h, .two).tokenUsingUV(permissions: .mc).0 == .notAllowed)
        // A device without a reader has no such command, and grants no be token.
        let plain = Harness(verifier: .always(.verified))
        #expect(try await plain.status(of: .bioEnrollment, [0x06: true]) == .invalidCommand)
        #expect(try await PlatformPIN(plain, .two).info().options["bioEnroll"] == nil)
        #expect(try await PlatformPIN(plain, .two).setPIN(PlatformPIN.testPIN) == .success)
        #expect(
            try await PlatformPIN(plain, .two).token(pin: PlatformPIN.testPIN, permissions: .be).0
                == .unauthorizedPermission)
    }

    @Test func sensorInfoAndModalityNeedNoToken() async throws {
        let h = Self.reader(samples: 4)
        let (status, body) = try await h.send(.bioEnrollment, [0x06: true])
        #expect(status == .success)
        #expect(try BioEnrollmentResponse(cbor: try #require(body)).modality == .fingerprint)
        let info = try await BioEnrollmentSession(
            session: CTAP2Session(transport: InProcessTransport(device: h.authenticator)), token: nil,
            info: try await PlatformPIN(h, .two).info()
        ).sensorInfo()
        #expect(info.modality == .fingerprint)
        #expect(info.fingerprintKind == .touch)
        #expect(info.maxCaptureSamplesRequiredForEnroll == 4)
        #expect(info.maxTemplateFriendlyName == 64)
    }

    @Test func enrollingNamingAndRemovingAFingerConfiguresUV() async throws {
        // Samples: good, poor (the scripted match fails), good, good; then one match for the UV token.
        let h = Self.reader([.verified, .failed, .verified, .verified, .verified])
        let bio = try await Self.session(h)
        #expect(try await bio.enrollments().isEmpty)
        let first = try await bio.enrollBegin()
        #expect(first.status == .good && first.remainingSamples == 2)
        let poor = try await bio.enrollCaptureNextSample(templateId: first.templateId)
        #expect(poor.status == .poorQuality && poor.remainingSamples == 2, "a poor sample counts for nothing")
        #expect(try await bio.enrollCaptureNextSample(templateId: first.templateId).remainingSamples == 1)
        #expect(try await bio.enrollCaptureNextSample(templateId: first.templateId).remainingSamples == 0)
        #expect(try await bio.enrollments() == [TemplateInfo(templateId: first.templateId, templateFriendlyName: "")])
        let info = try await PlatformPIN(h, .two).info()
        #expect(info.options["bioEnroll"] == true && info.options["uv"] == true)
        // The simulated matcher verifies: a token by built-in UV, costing nothing of uvRetries.
        #expect(try await PlatformPIN(h, .two).tokenUsingUV(permissions: .mc).0 == .success)
        #expect(try await h.authenticator.deviceState().uvRetries == DeviceState.maxUVRetries)

        let bio2 = try await Self.session(h)
        try await bio2.setFriendlyName(templateId: first.templateId, "Left index")
        #expect(
            try await bio2.enrollments() == [
                TemplateInfo(templateId: first.templateId, templateFriendlyName: "Left index")
            ])
        try await bio2.removeEnrollment(templateId: first.templateId)
        #expect(try await bio2.enrollments().isEmpty)
        #expect(try await PlatformPIN(h, .two).info().options["uv"] == false)
    }

    @Test func enrollmentsAreDurable() async throws {
        let store = InMemoryCredentialStore(capacity: 10)
        let id = try await Self.enroll(try await Self.session(Self.reader(store: store)))
        let restarted = Self.reader(store: store)
        #expect(try await restarted.authenticator.enrolledFingerprints() == [EnrolledFingerprint(templateId: id)])
        #expect(try await PlatformPIN(restarted, .two).info().options["uv"] == true)
    }

    @Test func badRequestsGetTheirStatusAndChangeNothing() async throws {
        let h = Self.reader()
        let bio = try await Self.session(h)
        let id = try await Self.enroll(bio)
        let before = try await h.authenticator.deviceState()
        // Shape: neither getModality nor a subcommand, a subcommand without its modality,
        // an unknown subcommand or modality.
        #expect(try await h.status(of: .bioEnrollment, [:]) == .missingParameter)
        #expect(try await h.status(of: .bioEnrollment, [0x02: 0x07]) == .missingParameter)
        #expect(try await h.status(of: .bioEnrollment, [0x01: 0x01, 0x02: 0x08]) == .invalidSubcommand)
        #expect(try await h.status(of: .bioEnrollment, [0x01: 0x02, 0x02: 0x07]) == .invalidParameter)
        #expect(try await h.status(of: .bioEnrollment, [0x01: 0x01, 0x02: "x"]) == .cborUnexpectedType)
        // Authentication: no param, no protocol, a param over another subcommand, a token without be.
        #expect(try await h.status(of: .bioEnrollment, [0x01: 0x01, 0x02: 0x04]) == .puatRequired)
        #expect(
            try await h.status(of: .bioEnrollment, [0x01: 0x01, 0x02: 0x04, 0x05: .byteString([1, 2])])
                == .missingParameter)
        let token = try #require(bio.token)
        var forged = BioEnrollmentRequest(
            subCommand: .removeEnrollment, subCommandParams: BioEnrollmentParameters(templateId: id),
            pinUvAuthProtocol: 2)
        forged.pinUvAuthParam = token.authenticate(
            BioEnrollmentRequest(subCommand: .enumerateEnrollments).authenticatedMessage)
        #expect(try await h.status(of: .bioEnrollment, forged.cbor) == .pinAuthInvalid)
        let cm = try #require(try await PlatformPIN(h, .two).token(pin: PlatformPIN.testPIN, permissions: .cm).1)
        var wrongPermission = BioEnrollmentRequest(
            subCommand: .removeEnrollment, subCommandParams: BioEnrollmentParameters(templateId: id),
            pinUvAuthProtocol: 2)
        wrongPermission.pinUvAuthParam = cm.authenticate(wrongPermission.authenticatedMessage)
        #expect(try await h.status(of: .bioEnrollment, wrongPermission.cbor) == .pinAuthInvalid)
        // Parameters: a template nobody enrolled, a name too long, a capture with nothing begun.
        let fresh = try await Self.session(h)
        await #expect(throws: CTAP2Error.status(.invalidOption)) {
            try await fresh.removeEnrollment(templateId: [9, 9])
        }
        await #expect(throws: CTAP2Error.status(.invalidOption)) {
            try await fresh.setFriendlyName(templateId: [9, 9], "x")
        }
        await #expect(throws: CTAP2Error.status(.invalidParameter)) {
            try await fresh.setFriendlyName(templateId: id, String(repeating: "n", count: 65))
        }
        await #expect(throws: CTAP2Error.status(.notAllowed)) {
            try await fresh.enrollCaptureNextSample(templateId: id)
        }
        #expect(try await h.authenticator.deviceState() == before)
    }

    @Test func anEnrollmentBelongsToItsCallerAndEndsWithAnythingElse() async throws {
        let h = Self.reader()
        let bio = try await Self.session(h)
        let begun = try await bio.enrollBegin()
        // Another template ID does not continue it; another command ends it.
        await #expect(throws: CTAP2Error.status(.invalidParameter)) {
            try await bio.enrollCaptureNextSample(templateId: [1])
        }
        let again = try await bio.enrollBegin()
        #expect(again.templateId != begun.templateId)
        // Another platform's command leaves it alone; the enrolling platform's own ends it.
        _ = try await h.send(.getInfo, from: .otherPlatform)
        #expect(try await bio.enrollCaptureNextSample(templateId: again.templateId).remainingSamples == 1)
        _ = try await bio.session.getInfo()
        await #expect(throws: CTAP2Error.status(.notAllowed)) {
            try await bio.enrollCaptureNextSample(templateId: again.templateId)
        }
        let third = try await bio.enrollBegin()
        try await bio.cancelCurrentEnrollment()
        await #expect(throws: CTAP2Error.status(.notAllowed)) {
            try await bio.enrollCaptureNextSample(templateId: third.templateId)
        }
        #expect(try await bio.enrollments().isEmpty, "nothing unfinished is kept")
    }

    @Test func aFullDatabaseTakesNoMore() async throws {
        let h = Self.reader()
        let bio = try await Self.session(h)
        _ = try await Self.enroll(bio)
        _ = try await Self.enroll(bio)
        await #expect(throws: CTAP2Error.status(.fingerprintDatabaseFull)) { try await bio.enrollBegin() }
        #expect(try await bio.enrollments().count == 2)
    }

    @Test func aCaptureNobodyAnswersTimesOut() async throws {
        let silent = Harness(verifier: ScriptedVerifier([.timedOut])) { $0.fingerprintSensor = FingerprintSensor() }
        let bio = try await Self.session(silent)
        await #expect(throws: CTAP2Error.status(.userActionTimeout)) { try await bio.enrollBegin() }
        #expect(try await bio.enrollments().isEmpty)
    }

    @Test func resetForgetsEveryFinger() async throws {
        let h = Self.reader()
        _ = try await Self.enroll(try await Self.session(h))
        #expect(try await h.status(of: .reset) == .success)
        #expect(try await h.authenticator.enrolledFingerprints().isEmpty)
    }

    @Test func theCTAP20ProfileHasNoBioEnrollment() async throws {
        let h = Harness(verifier: ScriptedVerifier([.verified]), profile: .fido20) {
            $0.fingerprintSensor = FingerprintSensor()
        }
        #expect(try await h.status(of: .bioEnrollment, [0x06: true]) == .invalidCommand)
        #expect(try await PlatformPIN(h, .one).info().options["bioEnroll"] == nil)
    }

    @Test func thePreviewCommandIsTheSameAndTakesTheLegacyToken() async throws {
        let h = Self.reader()
        let bio = try await Self.session(h)
        let id = try await Self.enroll(bio)
        let legacy = try await PlatformPIN(h, .two).grantedToken(pin: PlatformPIN.testPIN)
        var request = BioEnrollmentRequest(subCommand: .enumerateEnrollments, pinUvAuthProtocol: 2)
        request.pinUvAuthParam = legacy.authenticate(request.authenticatedMessage)
        // 0x09 keeps requiring be; 0x40 (CTAP 2.1-PRE) takes getPinToken's token, as credentialMgmtPreview does.
        #expect(try await h.status(of: .bioEnrollment, request.cbor) == .pinAuthInvalid)
        let (status, body) = try await h.send(.bioEnrollmentPreview, request.cbor)
        #expect(status == .success)
        #expect(try BioEnrollmentResponse(cbor: try #require(body)).templateInfos?.map(\.templateId) == [id])
        #expect(try await Harness().status(of: .bioEnrollmentPreview, [0x06: true]) == .invalidCommand)
    }
}
