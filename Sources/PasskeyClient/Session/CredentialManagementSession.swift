import CBOR
import CTAP
import Crypto

/// The platform side of authenticatorCredentialManagement (CTAP 2.1 §6.8): counts,
/// enumeration of RPs and their discoverable credentials, deletion and user updates.
///
/// Every subcommand that begins something is authenticated with a pinUvAuthToken that
/// carries the `cm` permission; the GetNext subcommands continue an enumeration and
/// carry no pinUvAuthParam (§6.8.3, §6.8.5).
public struct CredentialManagementSession: Sendable {
    /// The session the subcommands are sent on.
    public let session: CTAP2Session
    /// The token that authenticates each beginning subcommand; it must carry `cm`.
    public let token: PinUvAuthToken
    /// authenticatorCredentialManagement, or its CTAP 2.1-PRE code on prototype authenticators.
    public let command: CTAPCommand

    /// Fails with `CTAP1_ERR_INVALID_COMMAND` when the authenticator lists neither
    /// `credMgmt` nor (under FIDO_2_1_PRE) `credentialMgmtPreview` (§6.4).
    public init(session: CTAP2Session, token: PinUvAuthToken, info: GetInfoResponse) throws(CTAP2Error) {
        guard let command = Self.command(for: info) else { throw .status(.invalidCommand) }
        self.session = session
        self.token = token
        self.command = command
    }

    /// The command this authenticator answers credential management on, if any.
    public static func command(for info: GetInfoResponse) -> CTAPCommand? {
        if info.options["credMgmt"] == true { return .credentialManagement }
        if info.versions.contains("FIDO_2_1_PRE"), info.options["credentialMgmtPreview"] == true {
            return .credentialManagementPreview
        }
        return nil
    }

    /// Sends one subcommand, with pinUvAuthParam = authenticate(token, subCommand || subCommandParams)
    /// when it is authenticated (§6.8.1–§6.8.7).
    private func call(
        _ subCommand: CredentialManagementSubcommand,
        _ params: CredentialManagementParameters? = nil
    ) async throws(CTAP2Error) -> CredentialManagementResponse? {
        var request = CredentialManagementRequest(subCommand: subCommand, subCommandParams: params)
        if subCommand.isAuthenticated {
            request.pinUvAuthProtocol = token.protocolVersion
            request.pinUvAuthParam = token.authenticate(request.authenticatedMessage)
        }
        guard let body = try await session.send(command, request.cbor) else { return nil }
        do { return try CredentialManagementResponse(cbor: body) } catch { throw .malformedResponse }
    }

    private func answer(
        _ subCommand: CredentialManagementSubcommand,
        _ params: CredentialManagementParameters? = nil
    ) async throws(CTAP2Error) -> CredentialManagementResponse {
        guard let response = try await call(subCommand, params) else { throw .malformedResponse }
        return response
    }

    /// getCredsMetadata (§6.8.2).
    public func metadata() async throws(CTAP2Error) -> CredentialsMetadata {
        let response = try await answer(.getCredsMetadata)
        guard let existing = response.existingResidentCredentialsCount,
            let remaining = response.maxPossibleRemainingResidentCredentialsCount
        else { throw .malformedResponse }
        return CredentialsMetadata(existing: existing, maxPossibleRemaining: remaining)
    }

    /// enumerateRPsBegin then enumerateRPsGetNextRP until totalRPs (§6.8.3). An authenticator
    /// with no discoverable credentials answers `CTAP2_ERR_NO_CREDENTIALS`: that is an empty list.
    public func relyingParties() async throws(CTAP2Error) -> [ResidentRelyingParty] {
        let first: CredentialManagementResponse
        do {
            first = try await answer(.enumerateRPsBegin)
        } catch .status(.noCredentials) {
            return []
        }
        let total = first.totalRPs ?? 1
        guard total > 0 else { return [] }
        var all = [try ResidentRelyingParty(first)]
        for _ in 1..<total {
            all.append(try ResidentRelyingParty(try await answer(.enumerateRPsGetNextRP)))
        }
        return all
    }

    /// enumerateCredentialsBegin then enumerateCredentialsGetNextCredential (§6.8.4, §6.8.5):
    /// the discoverable credentials of the RP whose RP ID hashes to `rpIDHash`.
    public func credentials(rpIDHash: [UInt8]) async throws(CTAP2Error) -> [ResidentCredential] {
        let first: CredentialManagementResponse
        do {
            first = try await answer(.enumerateCredentialsBegin, CredentialManagementParameters(rpIDHash: rpIDHash))
        } catch .status(.noCredentials) {
            return []
        }
        var all = [try ResidentCredential(first)]
        for _ in 1..<max(1, first.totalCredentials ?? 1) {
            all.append(try ResidentCredential(try await answer(.enumerateCredentialsGetNextCredential)))
        }
        return all
    }

    /// The credentials of one RP ID.
    public func credentials(rpID: String) async throws(CTAP2Error) -> [ResidentCredential] {
        try await credentials(rpIDHash: Array(SHA256.hash(data: Array(rpID.utf8))))
    }

    /// deleteCredential (§6.8.6); `CTAP2_ERR_NO_CREDENTIALS` when there is no such credential.
    public func deleteCredential(id: [UInt8]) async throws(CTAP2Error) {
        _ = try await call(
            .deleteCredential, CredentialManagementParameters(credentialID: PublicKeyCredentialDescriptor(id: id)))
    }

    /// updateUserInformation (§6.8.7): replaces name and displayName; `user.id` must be the
    /// credential's own user handle (`CTAP1_ERR_INVALID_PARAMETER` otherwise).
    public func updateUserInformation(credentialID: [UInt8], user: PublicKeyCredentialUserEntity)
        async throws(CTAP2Error)
    {
        _ = try await call(
            .updateUserInformation,
            CredentialManagementParameters(credentialID: PublicKeyCredentialDescriptor(id: credentialID), user: user))
    }
}
