import CBOR
import CTAP

/// The platform side of authenticatorBioEnrollment for the fingerprint modality (CTAP 2.1 §6.7):
/// sensor information, enrollment sample by sample, and the enrolled templates' names and removal.
///
/// Every subcommand but getFingerprintSensorInfo and cancelCurrentEnrollment is authenticated
/// with a pinUvAuthToken carrying the `be` permission, over modality ‖ subCommand ‖ subCommandParams.
public struct BioEnrollmentSession: Sendable {
    /// The session the subcommands are sent on.
    public let session: CTAP2Session
    /// Nil for the unauthenticated subcommands alone.
    public let token: PinUvAuthToken?

    /// Fails with `CTAP1_ERR_INVALID_COMMAND` when the authenticator does not list `bioEnroll` (§6.4).
    public init(session: CTAP2Session, token: PinUvAuthToken?, info: GetInfoResponse) throws(CTAP2Error) {
        guard info.options["bioEnroll"] != nil else { throw .status(.invalidCommand) }
        self.session = session
        self.token = token
    }

    /// One sample's outcome: its status and how many good samples are still needed.
    public struct Capture: Sendable, Hashable {
        /// The template being enrolled.
        public var templateId: [UInt8]
        /// How the last sample went (CTAP 2.1 §6.7.3).
        public var status: LastEnrollSampleStatus
        /// Good samples still needed; 0 when the enrollment is complete.
        public var remainingSamples: Int
    }

    private func call(_ subCommand: BioEnrollmentSubcommand, _ params: BioEnrollmentParameters? = nil)
        async throws(CTAP2Error) -> BioEnrollmentResponse?
    {
        var request = BioEnrollmentRequest(subCommand: subCommand, subCommandParams: params)
        if subCommand.isAuthenticated {
            guard let token else { throw .status(.puatRequired) }
            request.pinUvAuthProtocol = token.protocolVersion
            request.pinUvAuthParam = token.authenticate(request.authenticatedMessage)
        }
        guard let body = try await session.send(.bioEnrollment, request.cbor) else { return nil }
        do { return try BioEnrollmentResponse(cbor: body) } catch { throw .malformedResponse }
    }

    /// getFingerprintSensorInfo (§6.7.3).
    public func sensorInfo() async throws(CTAP2Error) -> BioEnrollmentResponse {
        guard let response = try await call(.getFingerprintSensorInfo) else { throw .malformedResponse }
        return response
    }

    /// enrollBegin (§6.7.4): a new template and its first sample.
    public func enrollBegin(timeoutMilliseconds: Int? = nil) async throws(CTAP2Error) -> Capture {
        let response = try await call(
            .enrollBegin, timeoutMilliseconds.map { BioEnrollmentParameters(timeoutMilliseconds: $0) })
        guard let templateId = response?.templateId else { throw .malformedResponse }
        return try Self.capture(response, templateId: templateId)
    }

    /// enrollCaptureNextSample (§6.7.4): the next sample for `templateId`.
    public func enrollCaptureNextSample(templateId: [UInt8], timeoutMilliseconds: Int? = nil) async throws(CTAP2Error)
        -> Capture
    {
        let response = try await call(
            .enrollCaptureNextSample,
            BioEnrollmentParameters(templateId: templateId, timeoutMilliseconds: timeoutMilliseconds))
        return try Self.capture(response, templateId: templateId)
    }

    private static func capture(_ response: BioEnrollmentResponse?, templateId: [UInt8]) throws(CTAP2Error) -> Capture {
        guard let status = response?.lastEnrollSampleStatus, let remaining = response?.remainingSamples else {
            throw .malformedResponse
        }
        return Capture(templateId: templateId, status: status, remainingSamples: remaining)
    }

    /// cancelCurrentEnrollment (§6.7.5).
    public func cancelCurrentEnrollment() async throws(CTAP2Error) {
        _ = try await call(.cancelCurrentEnrollment)
    }

    /// enumerateEnrollments (§6.7.6); the authenticator's CTAP2_ERR_INVALID_OPTION for none is an empty list.
    public func enrollments() async throws(CTAP2Error) -> [TemplateInfo] {
        do {
            return try await call(.enumerateEnrollments)?.templateInfos ?? []
        } catch .status(.invalidOption) {
            return []
        }
    }

    /// setFriendlyName (§6.7.7).
    public func setFriendlyName(templateId: [UInt8], _ name: String) async throws(CTAP2Error) {
        _ = try await call(
            .setFriendlyName, BioEnrollmentParameters(templateId: templateId, templateFriendlyName: name))
    }

    /// removeEnrollment (§6.7.8).
    public func removeEnrollment(templateId: [UInt8]) async throws(CTAP2Error) {
        _ = try await call(.removeEnrollment, BioEnrollmentParameters(templateId: templateId))
    }
}
