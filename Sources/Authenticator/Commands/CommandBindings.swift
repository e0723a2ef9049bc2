import CBOR
import CTAP

// Each command's request bound to the steps that answer it (`AuthenticatorCommand`); the
// steps themselves live in the command's own file.

extension GetInfoRequest: AuthenticatorCommand {
    func run(on authenticator: isolated Authenticator, _ context: inout CommandContext) async throws(CTAPStatus)
        -> GetInfoResponse
    {
        try await authenticator.getInfo()
    }
}

extension MakeCredentialRequest: AuthenticatorCommand {
    /// CTAP 2.0 devices check the entities' `icon` type before anything else reads them.
    static func parse(_ parameters: [UInt8], on authenticator: isolated Authenticator) throws(CTAPStatus) -> Self {
        let value = try CBORValue(parameters: parameters)
        if authenticator.configuration.rules.typeChecksEntityIcons, !entityIconsAreText(in: value) {
            throw .cborUnexpectedType
        }
        return try Self(cbor: value)
    }

    func faultScope(_ context: CommandContext) -> String? { rp.id }

    func run(on authenticator: isolated Authenticator, _ context: inout CommandContext) async throws(CTAPStatus)
        -> MakeCredentialResponse
    {
        try await authenticator.makeCredential(self)
    }

    func event(answering response: MakeCredentialResponse, _ context: CommandContext) -> DeviceEvent? {
        DeviceEvent(made: response, for: self)
    }
}

extension GetAssertionRequest: AuthenticatorCommand {
    func faultScope(_ context: CommandContext) -> String? { rpID }

    func run(on authenticator: isolated Authenticator, _ context: inout CommandContext) async throws(CTAPStatus)
        -> GetAssertionResponse
    {
        let (response, pending) = try await authenticator.getAssertion(self)
        context.next = pending.map(Conversation.assertions)
        return response
    }

    func event(answering response: GetAssertionResponse, _ context: CommandContext) -> DeviceEvent? {
        DeviceEvent(asserted: response, rpID: rpID)
    }
}

extension GetNextAssertionRequest: AuthenticatorCommand {
    /// The faults of the getAssertion being continued.
    func faultScope(_ context: CommandContext) -> String? { context.conversation?.assertions?.rpID }

    func run(on authenticator: isolated Authenticator, _ context: inout CommandContext) async throws(CTAPStatus)
        -> GetAssertionResponse
    {
        guard var pending = context.conversation?.assertions else { throw .notAllowed }
        let response = try await authenticator.getNextAssertion(&pending)
        context.next = pending.remaining.isEmpty ? nil : .assertions(pending)
        return response
    }

    func event(answering response: GetAssertionResponse, _ context: CommandContext) -> DeviceEvent? {
        context.conversation?.assertions.map { DeviceEvent(asserted: response, rpID: $0.rpID) }
    }
}

extension ClientPINRequest: AuthenticatorCommand {
    /// A subcommand this version lacks is unknown to it, whatever else the request misses.
    static func parse(_ parameters: [UInt8], on authenticator: isolated Authenticator) throws(CTAPStatus) -> Self {
        let value = try CBORValue(parameters: parameters)
        if let subCommand = subCommand(in: value),
            authenticator.configuration.rules.withheldPINSubcommands.contains(subCommand)
        {
            throw .invalidSubcommand
        }
        return try Self(cbor: value)
    }

    func run(on authenticator: isolated Authenticator, _ context: inout CommandContext) async throws(CTAPStatus)
        -> ClientPINResponse?
    {
        try await authenticator.clientPIN(self)
    }

    func event(answering response: ClientPINResponse?, _ context: CommandContext) -> DeviceEvent? {
        DeviceEvent(pinChangedBy: self)
    }
}

extension CredentialManagementRequest: AuthenticatorCommand {
    func run(
        on authenticator: isolated Authenticator,
        _ context: inout CommandContext
    ) async throws(CTAPStatus) -> CredentialManagementResponse? {
        var enumeration = context.conversation?.credentialEnumeration
        let response = try await authenticator.credentialManagement(
            self, preview: context.command == .credentialManagementPreview,
            continuing: &enumeration)
        context.next = enumeration.map(Conversation.credentialEnumeration)
        return response
    }

    func event(answering response: CredentialManagementResponse?, _ context: CommandContext) -> DeviceEvent? {
        DeviceEvent(changedBy: self)
    }
}

extension LargeBlobsRequest: AuthenticatorCommand {
    func run(on authenticator: isolated Authenticator, _ context: inout CommandContext) async throws(CTAPStatus)
        -> LargeBlobsResponse?
    {
        var write = context.conversation?.largeBlobWrite
        let response = try await authenticator.largeBlobs(self, continuing: &write)
        context.next = write.map(Conversation.largeBlobWrite)
        return response
    }
}

extension BioEnrollmentRequest: AuthenticatorCommand {
    /// A device without a reader does not have the command, whatever its parameters.
    static func parse(_ parameters: [UInt8], on authenticator: isolated Authenticator) throws(CTAPStatus) -> Self {
        guard authenticator.hasFingerprintReader else { throw .invalidCommand }
        return try Self(parameters: parameters)
    }

    func run(on authenticator: isolated Authenticator, _ context: inout CommandContext) async throws(CTAPStatus)
        -> BioEnrollmentResponse?
    {
        var enrollment = context.conversation?.fingerprintEnrollment
        let response = try await authenticator.bioEnrollment(
            self, preview: context.command == .bioEnrollmentPreview, continuing: &enrollment)
        context.next = enrollment.map(Conversation.fingerprintEnrollment)
        return response
    }
}

extension AuthenticatorConfigRequest: AuthenticatorCommand {
    func run(on authenticator: isolated Authenticator, _ context: inout CommandContext) async throws(CTAPStatus)
        -> StatusOnly
    {
        try await authenticator.authenticatorConfig(self)
        return StatusOnly()
    }
}

extension ResetRequest: AuthenticatorCommand {
    func run(on authenticator: isolated Authenticator, _ context: inout CommandContext) async throws(CTAPStatus)
        -> StatusOnly
    {
        try await authenticator.reset()
        return StatusOnly()
    }

    func event(answering response: StatusOnly, _ context: CommandContext) -> DeviceEvent? { DeviceEvent(kind: .reset) }
}

extension SelectionRequest: AuthenticatorCommand {
    func run(on authenticator: isolated Authenticator, _ context: inout CommandContext) async throws(CTAPStatus)
        -> StatusOnly
    {
        try await authenticator.selection()
        return StatusOnly()
    }
}

extension AttestationRootRequest: AuthenticatorCommand {
    func run(on authenticator: isolated Authenticator, _ context: inout CommandContext) async throws(CTAPStatus)
        -> AttestationRootResponse
    {
        AttestationRootResponse(certificate: try await authenticator.attestationAuthority().rootCertificate)
    }
}

/// A vendor command's steps, named by its parameters (one conformance of the generic request).
protocol VendorCommand: VendorCommandParameters {
    static func run(
        _ request: AuthenticatedVendorRequest<Self>, on authenticator: isolated Authenticator,
        _ context: inout CommandContext
    ) async throws(CTAPStatus) -> Response
    static func event(_ request: AuthenticatedVendorRequest<Self>, _ context: CommandContext) -> DeviceEvent?
}

extension AuthenticatedVendorRequest: AuthenticatorCommand where Parameters: VendorCommand {
    func run(on authenticator: isolated Authenticator, _ context: inout CommandContext) async throws(CTAPStatus)
        -> Parameters.Response
    {
        try await Parameters.run(self, on: authenticator, &context)
    }

    func event(answering response: Parameters.Response, _ context: CommandContext) -> DeviceEvent? {
        Parameters.event(self, context)
    }
}

extension ExportParameters: VendorCommand {
    static func run(
        _ request: AuthenticatedVendorRequest<Self>, on authenticator: isolated Authenticator,
        _ context: inout CommandContext
    ) async throws(CTAPStatus) -> ExportResponse {
        try await authenticator.exportCredentials(request)
    }

    static func event(_ request: AuthenticatedVendorRequest<Self>, _ context: CommandContext) -> DeviceEvent? { nil }
}

extension ImportParameters: VendorCommand {
    static func run(
        _ request: AuthenticatedVendorRequest<Self>, on authenticator: isolated Authenticator,
        _ context: inout CommandContext
    ) async throws(CTAPStatus) -> StatusOnly {
        try await authenticator.importCredential(request)
        return StatusOnly()
    }

    static func event(_ request: AuthenticatedVendorRequest<Self>, _ context: CommandContext) -> DeviceEvent? {
        DeviceEvent(imported: request.parameters.credential)
    }
}

extension CredentialFlagsParameters: VendorCommand {
    static func run(
        _ request: AuthenticatedVendorRequest<Self>, on authenticator: isolated Authenticator,
        _ context: inout CommandContext
    ) async throws(CTAPStatus) -> StatusOnly {
        context.changed = try await authenticator.setCredentialFlags(request)
        return StatusOnly()
    }

    static func event(_ request: AuthenticatedVendorRequest<Self>, _ context: CommandContext) -> DeviceEvent? {
        context.changed.map(DeviceEvent.init(flagsChangedOn:))
    }
}

extension DeleteParameters: VendorCommand {
    static func run(
        _ request: AuthenticatedVendorRequest<Self>, on authenticator: isolated Authenticator,
        _ context: inout CommandContext
    ) async throws(CTAPStatus) -> StatusOnly {
        context.changed = try await authenticator.deleteCredential(request)
        return StatusOnly()
    }

    static func event(_ request: AuthenticatedVendorRequest<Self>, _ context: CommandContext) -> DeviceEvent? {
        context.changed.map(DeviceEvent.init(deletedByTestControls:))
    }
}
