import CBOR
import CTAP
import PasskeydMacros

/// passkeyd's credential transfer commands (docs/vendor-commands.md), typed: export and import
/// of discoverable credentials and a credential's backup flags. Each request carries a
/// pinUvAuthParam from a token with the `cm` permission, as credential management does.
@MemberwiseInit
public struct CredentialTransferSession: Sendable {
    /// The session the commands are sent on.
    public let session: CTAP2Session
    /// The token that authenticates each command; it must carry `cm`.
    public let token: PinUvAuthToken

    /// A session whose commands `token` authenticates.

    /// Every discoverable credential (of `rpID`, when given), page by page; private keys only
    /// when asked for.
    public func export(rpID: String? = nil, includePrivateKeys: Bool = false) async throws(CTAP2Error)
        -> [CredentialRecord]
    {
        var records: [CredentialRecord] = []
        while true {
            let parameters = ExportParameters(
                rpID: rpID, includePrivateKeys: includePrivateKeys ? true : nil,
                offset: records.isEmpty ? nil : records.count)
            let page = try await call(parameters)
            records += page.credentials
            guard let total = page.total else { throw .malformedResponse }
            if records.count >= total || page.credentials.isEmpty { return records }
        }
    }

    /// Stores one credential as discoverable; one with the same RP and user handle is replaced.
    public func importCredential(_ record: CredentialRecord) async throws(CTAP2Error) {
        _ = try await call(ImportParameters(credential: record))
    }

    /// Sets a stored credential's BE and BS and its signature counter (the last count used; the
    /// next assertion reports one more) (nil: unchanged); BS without BE is refused.
    public func setBackupFlags(
        credentialID: [UInt8], eligible: Bool?, backedUp: Bool?, signCount: Int? = nil
    ) async throws(CTAP2Error) {
        _ = try await call(
            CredentialFlagsParameters(
                credentialID: credentialID, backupEligible: eligible, backupState: backedUp, signCount: signCount))
    }

    /// Removes one credential, discoverable or not (passkeydDelete).
    public func delete(credentialID: [UInt8]) async throws(CTAP2Error) {
        _ = try await call(DeleteParameters(credentialID: credentialID))
    }

    private func call<P: VendorCommandParameters>(_ parameters: P) async throws(CTAP2Error) -> P.Response {
        var request = AuthenticatedVendorRequest(parameters: parameters, pinUvAuthProtocol: token.protocolVersion)
        request.pinUvAuthParam = token.authenticate(request.authenticatedMessage(P.command))
        return try await session.call(request)
    }
}
