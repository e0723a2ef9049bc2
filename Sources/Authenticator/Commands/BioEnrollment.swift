import CTAP

extension Authenticator {
    /// authenticatorBioEnrollment (CTAP 2.1 §6.7) on the simulated fingerprint reader, also answered
    /// under the CTAP 2.1-PRE command 0x40 (`preview`), whose requests are the same.
    /// `enrollment` is the caller's fingerprint being enrolled; on return, the one its next
    /// enrollCaptureNextSample continues, if any. Nothing stored changes unless every check passes.
    func bioEnrollment(
        _ request: BioEnrollmentRequest, preview: Bool = false,
        continuing enrollment: inout FingerprintEnrollment?
    ) async throws(CTAPStatus) -> BioEnrollmentResponse? {
        guard let sensor = configuration.fingerprintSensor, let verifier else { throw .invalidCommand }
        let subCommand: BioEnrollmentSubcommand
        switch try request.action() {
        case .getModality:
            // §6.7.2.
            return BioEnrollmentResponse(modality: .fingerprint)
        case .subcommand(_, let named):
            subCommand = named
        }
        // §6.7.4–§6.7.8: verify(pinUvAuthToken, modality ‖ subCommand ‖ subCommandParams,
        // pinUvAuthParam) with the be permission; the permissions RP ID plays no part.
        if subCommand.isAuthenticated {
            guard let param = request.pinUvAuthParam else { throw .puatRequired }
            // A CTAP 2.1-PRE platform may hold only getPinToken's token, so the preview command takes it.
            _ = try authorize(
                param, protocol: try pinUvAuthProtocol(request.pinUvAuthProtocol),
                message: request.authenticatedMessage, permission: .be, legacyAllowed: preview)
        }
        let params = request.subCommandParams
        switch subCommand {
        case .getFingerprintSensorInfo:
            // §6.7.3.
            return BioEnrollmentResponse(
                modality: .fingerprint, fingerprintKind: sensor.kind,
                maxCaptureSamplesRequiredForEnroll: sensor.samplesPerEnrollment,
                maxTemplateFriendlyName: sensor.maxTemplateFriendlyName)
        case .enrollBegin:
            // §6.7.4: an unfinished enrollment is abandoned; a full database takes no more.
            enrollment = nil
            guard try await enrolledFingerprints().count < sensor.maxEnrollments else { throw .fingerprintDatabaseFull }
            var started = FingerprintEnrollment(
                templateId: SecureRandom.bytes(16), remainingSamples: sensor.samplesPerEnrollment,
                lastAnswerAt: configuration.now())
            let status = try await capture(
                into: &started, verifier: verifier, timeout: params?.timeoutMilliseconds, sensor: sensor)
            enrollment = started.remainingSamples > 0 ? started : nil
            return BioEnrollmentResponse(
                templateId: started.templateId, lastEnrollSampleStatus: status,
                remainingSamples: started.remainingSamples)
        case .enrollCaptureNextSample:
            // §6.7.4: the sample continues the template this caller is enrolling.
            guard let templateId = params?.templateId else { throw .missingParameter }
            guard var current = enrollment else { throw .notAllowed }
            guard current.templateId == templateId else { throw .invalidParameter }
            enrollment = nil
            let status = try await capture(
                into: &current, verifier: verifier, timeout: params?.timeoutMilliseconds, sensor: sensor)
            enrollment = current.remainingSamples > 0 ? current : nil
            return BioEnrollmentResponse(lastEnrollSampleStatus: status, remainingSamples: current.remainingSamples)
        case .cancelCurrentEnrollment:
            // §6.7.5: whatever was being enrolled is dropped; with nothing in progress there is nothing to do.
            enrollment = nil
            return nil
        case .enumerateEnrollments:
            // §6.7.6: nothing enrolled is CTAP2_ERR_INVALID_OPTION.
            let enrolled = try await enrolledFingerprints()
            guard !enrolled.isEmpty else { throw .invalidOption }
            return BioEnrollmentResponse(
                templateInfos: enrolled.map {
                    TemplateInfo(templateId: $0.templateId, templateFriendlyName: $0.friendlyName ?? "")
                })
        case .setFriendlyName:
            // §6.7.7.
            guard let templateId = params?.templateId, let name = params?.templateFriendlyName else {
                throw .missingParameter
            }
            guard name.utf8.count <= sensor.maxTemplateFriendlyName else { throw .invalidParameter }
            try await changeEnrolledFingerprint(templateId) { $0.friendlyName = name.isEmpty ? nil : name }
            logger.info("fingerprint renamed")
            return nil
        case .removeEnrollment:
            // §6.7.8.
            guard let templateId = params?.templateId else { throw .missingParameter }
            try await changeEnrolledFingerprint(templateId, remove: true) { _ in }
            logger.notice("fingerprint removed")
            return nil
        }
    }

    /// Whether the device has the simulated fingerprint reader, and with it authenticatorBioEnrollment.
    var hasFingerprintReader: Bool { configuration.fingerprintSensor != nil && verifier != nil }

    /// The fingerprints enrolled, oldest first.
    func enrolledFingerprints() async throws(CTAPStatus) -> [EnrolledFingerprint] {
        try await deviceState().fingerprints ?? []
    }

    /// Renames or removes an enrolled template; one not enrolled is CTAP2_ERR_INVALID_OPTION
    /// (§6.7.7, §6.7.8), and nothing is written.
    private func changeEnrolledFingerprint(
        _ templateId: [UInt8], remove: Bool = false,
        _ change: @escaping @Sendable (inout EnrolledFingerprint) -> Void
    ) async throws(CTAPStatus) {
        try await updateDeviceState { state throws(CTAPStatus) in
            var enrolled = state.fingerprints ?? []
            guard let index = enrolled.firstIndex(where: { $0.templateId == templateId }) else { throw .invalidOption }
            if remove { enrolled.remove(at: index) } else { change(&enrolled[index]) }
            state.fingerprints = enrolled.isEmpty ? nil : enrolled
        }
    }

    /// One capture for the template being enrolled (§6.7.4): a good sample counts down
    /// remainingSamples, and the last one stores the template. The user's finger is the
    /// verifier's answer read as a sample: a match is a good sample, a failed one a poor
    /// sample. A capture is no verification, so it costs no uvRetries.
    private func capture(
        into enrollment: inout FingerprintEnrollment, verifier: any UserVerifier, timeout milliseconds: Int?,
        sensor: FingerprintSensor
    ) async throws(CTAPStatus) -> LastEnrollSampleStatus {
        let timeout = milliseconds.map { Duration.milliseconds($0) } ?? sensor.captureTimeout
        await Self.progress(.userPresenceNeeded)
        let outcome = await Self.presentFinger(to: verifier, within: timeout)
        await Self.progress(.processing)
        if Task.isCancelled { throw .keepaliveCancel }
        enrollment.lastAnswerAt = configuration.now()
        switch outcome {
        case .verified:
            enrollment.remainingSamples -= 1
        case .failed:
            return .poorQuality
        case .timedOut, nil:
            throw .userActionTimeout
        case .cancelled:
            throw .keepaliveCancel
        }
        if enrollment.remainingSamples == 0 {
            let template = EnrolledFingerprint(templateId: enrollment.templateId)
            let full = try await updateDeviceState { state -> Bool in
                var enrolled = state.fingerprints ?? []
                guard enrolled.count < sensor.maxEnrollments else { return true }
                enrolled.append(template)
                state.fingerprints = enrolled
                return false
            }
            if full { throw .fingerprintDatabaseFull }
            logger.notice("fingerprint enrolled")
        }
        return .good
    }

    /// The verifier's answer to a finger on the sensor, or nil once `timeout` has passed.
    private static func presentFinger(to verifier: any UserVerifier, within timeout: Duration) async
        -> VerificationOutcome?
    {
        await withTaskGroup(of: VerificationOutcome?.self) { group in
            group.addTask { await verifier.verifyUser(UserActionRequest(purpose: .fingerprintSample)) }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }
}
