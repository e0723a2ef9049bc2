import CTAP
import Foundation

/// passkeyd's credential transfer commands (docs/vendor-commands.md, docs/testing-your-relying-party.md):
/// export and import of credentials, a credential's backup flags and counter, and its removal.
/// Test controls, but never unauthenticated unless the daemon was started for a test suite
/// (`--open-test-controls`): each needs a pinUvAuthToken with the `cm` permission, as credential
/// management does (CTAP 2.1 §6.8.1); private keys leave only as `authorizePrivateKeyExport` allows.
extension Authenticator {
    /// At most this many credentials per page: with private keys, a page stays well inside one
    /// CTAPHID message (7609 bytes).
    static let exportPageSize = 8

    func exportCredentials(_ request: AuthenticatedVendorRequest<ExportParameters>) async throws(CTAPStatus)
        -> ExportResponse
    {
        let token = try authorizeTransfer(request, .passkeydExport)
        let parameters = request.parameters
        if let bound = token?.rpID, bound != parameters.rpID { throw .pinAuthInvalid }
        var all: [CredentialSource]
        if let id = parameters.credentialID {
            all = try await listed(id).map { [$0] } ?? []
            if let rpID = parameters.rpID { all.removeAll { !$0.isScoped(to: rpID) } }
            if let bound = token?.rpID { all.removeAll { !$0.isScoped(to: bound) } }
        } else {
            do {
                if let rpID = parameters.rpID {
                    all = try await store.credentials(rpID: rpID)
                } else {
                    all = try await store.allCredentials()
                }
            } catch { throw storeFailure(error) }
        }
        let hidden = await nonDiscoverableCredentials?.nonDiscoverable(rpID: parameters.rpID) ?? []
        let hiddenIDs = Set(hidden.map(\.id))
        if parameters.credentialID == nil { all += hidden }
        // A stable order, so pages neither repeat nor skip: RP ID, then creation, then ID.
        all.sort { a, b in
            if a.rp.id != b.rp.id { return a.rp.id < b.rp.id }
            if a.createdAt != b.createdAt { return a.createdAt < b.createdAt }
            return a.id.lexicographicallyPrecedes(b.id)
        }
        let offset = parameters.offset ?? 0
        guard offset <= all.count else { throw .invalidParameter }
        let page = all[offset..<min(all.count, offset + Self.exportPageSize)]
        let withKeys = parameters.includePrivateKeys == true
        if withKeys {
            try await authorizePrivateKeyExport(token)
            logger.notice("credentials exported with their private keys", metadata: ["count": "\(page.count)"])
        }
        // The count last used, where a lease counts ahead of the stored mark (SignatureCounterLease).
        let records = page.map {
            $0.record(
                includingPrivateKey: withKeys, signCount: counterLeases.resident[$0.id]?.issued ?? $0.signCount,
                discoverable: !hiddenIDs.contains($0.id))
        }
        return ExportResponse(credentials: records, total: all.count)
    }

    func importCredential(_ request: AuthenticatedVendorRequest<ImportParameters>) async throws(CTAPStatus) {
        let token = try authorizeTransfer(request, .passkeydImport)
        let record = request.parameters.credential
        if let bound = token?.rpID, bound != record.rp.id { throw .pinAuthInvalid }
        let source = try CredentialSource(importing: record)
        if record.discoverable == false {
            // A caller-chosen ID cannot carry its key (CredentialWrapping): kept beside the store.
            guard let kept = nonDiscoverableCredentials else { throw .unsupportedOption }
            try await kept.saveNonDiscoverable(source)
            logger.info("non-discoverable credential imported")
            return
        }
        // A device without discoverable credentials (`--no-resident-keys`) keeps none.
        guard configuration.profile.residentKeys else { throw .unsupportedOption }
        // Two credentials never share an ID; importing the same credential again replaces it.
        let existing: CredentialSource?
        do { existing = try await store.credential(id: source.id) } catch { throw storeFailure(error) }
        if let existing, existing.rp.id != source.rp.id || existing.user.id != source.user.id {
            throw .credentialExcluded
        }
        if await nonDiscoverableCredentials?.holds(source.id) == true { throw .credentialExcluded }
        do { try await store.save(source) } catch { throw storeFailure(error) }
        logger.info("credential imported")
    }

    /// passkeydDelete: removes one credential, discoverable or not; an unknown ID is `CTAP2_ERR_NO_CREDENTIALS`.
    func deleteCredential(_ request: AuthenticatedVendorRequest<DeleteParameters>) async throws(CTAPStatus)
        -> CredentialSource
    {
        let token = try authorizeTransfer(request, .passkeydDelete)
        let id = request.parameters.credentialID
        guard let source = try await listed(id) else { throw .noCredentials }
        if let bound = token?.rpID, !source.isScoped(to: bound) { throw .pinAuthInvalid }
        do { try await store.delete(credentialID: id) } catch { throw storeFailure(error) }
        logger.info("credential deleted by the test controls")
        return source
    }

    /// The store's non-discoverable side, when the device has one (DeviceFactory gives the daemon's).
    private var nonDiscoverableCredentials: NonDiscoverableCredentials? {
        store as? NonDiscoverableCredentials
    }

    /// The credential with this ID as the test controls list it: a non-discoverable one the
    /// device made with the user it was made for (the spec steps see it without), any other as
    /// stored.
    private func listed(_ id: [UInt8]) async throws(CTAPStatus) -> CredentialSource? {
        if let kept = await nonDiscoverableCredentials?.nonDiscoverable(id: id) { return kept }
        do { return try await store.credential(id: id) } catch { throw storeFailure(error) }
    }

    func setCredentialFlags(_ request: AuthenticatedVendorRequest<CredentialFlagsParameters>) async throws(CTAPStatus)
        -> CredentialSource
    {
        let token = try authorizeTransfer(request, .passkeydCredentialFlags)
        let parameters = request.parameters
        guard var source = try await listed(parameters.credentialID) else { throw .noCredentials }
        if let bound = token?.rpID, !source.isScoped(to: bound) { throw .pinAuthInvalid }
        let current = source.backup ?? .singleDevice
        // WebAuthn L3 §6.1: BS never without BE.
        guard
            let backup = BackupFlags(
                eligible: parameters.backupEligible ?? current.eligible,
                backedUp: parameters.backupState ?? current.backedUp)
        else { throw .invalidParameter }
        source.backup = backup
        var lease: SignatureCounterLease?
        if let count = parameters.signCount {
            guard let count = UInt32(exactly: count) else { throw .invalidParameter }
            // The next assertion reports count + 1 (Chrome's `signCount`): `count` becomes the
            // last one issued, under a fresh lease whose mark is what is stored (SignatureCounterLease).
            let step = SignatureCounterLease.advance(nil, storedMark: count &- 1)
            source.signCount = step.newMark ?? count
            lease = step.lease
        }
        do {
            if let kept = nonDiscoverableCredentials {
                try await kept.replace(source)
            } else {
                try await store.save(source)
            }
        } catch { throw storeFailure(error) }
        if let lease { counterLeases.keep(lease, for: source.id) }
        return source
    }

    /// Private keys leave only when the daemon's owner opted in (`--allow-private-key-export`)
    /// and, once a PIN is set, only for a token the PIN bought: under `--uv auto` any process of
    /// the user gets a `cm` token by built-in UV, so a `cm` token alone proves nothing about who
    /// asks (docs/keystore.md, "Threat model"). Not opted in is `CTAP2_ERR_OPERATION_DENIED`; a
    /// token from built-in UV with a PIN set is `CTAP2_ERR_UNAUTHORIZED_PERMISSION`.
    private func authorizePrivateKeyExport(_ token: PinUvAuthTokenState?) async throws(CTAPStatus) {
        guard configuration.allowsPrivateKeyExport else {
            logger.notice(
                "private key export refused: start passkeyd with --allow-private-key-export or PASSKEYD_ALLOW_PRIVATE_KEY_EXPORT=1 to allow it"
            )
            throw .operationDenied
        }
        if try await deviceState().pinHash != nil, token?.isPINDerived != true {
            logger.notice(
                "private key export refused: a PIN is set, and only a token obtained with the PIN releases private keys"
            )
            throw .unauthorizedPermission
        }
    }

    /// CTAP 2.1 §6.8.1 steps 1–4, for a vendor command: a pinUvAuthParam over `command || parameters`
    /// from a token with the `cm` permission. Under `--open-test-controls` a request without one
    /// is taken too (nil: no token); one that carries a pinUvAuthParam is still checked.
    private func authorizeTransfer<P>(_ request: AuthenticatedVendorRequest<P>, _ command: CTAPCommand)
        throws(CTAPStatus) -> PinUvAuthTokenState?
    {
        guard let param = request.pinUvAuthParam else {
            if controls.admitsTokenlessCredentialControls { return nil }
            throw .puatRequired
        }
        return try authorize(
            param, protocol: try pinUvAuthProtocol(request.pinUvAuthProtocol),
            message: request.authenticatedMessage(command), permission: .cm)
    }
}

extension CredentialSource {
    func record(includingPrivateKey: Bool, signCount: UInt32, discoverable: Bool = true) -> CredentialRecord {
        CredentialRecord(
            id: id, rp: rp, user: user, algorithm: algorithm.rawValue, signCount: Int(signCount),
            privateKey: includingPrivateKey ? privateKey : nil, credProtect: Int(credProtect),
            backupEligible: (backup ?? .singleDevice).eligible, backupState: (backup ?? .singleDevice).backedUp,
            createdAt: Int(createdAt.timeIntervalSince1970), countsSignatures: countsSignatures,
            largeBlobKey: largeBlobKey, discoverable: discoverable ? nil : false, application: application)
    }

    /// The longest credential ID an import takes: WebAuthn L3 §4's limit ("at most 1023 bytes"),
    /// so a test suite's IDs from Chrome's virtual authenticator fit.
    public static let maxImportedIDLength = 1023

    /// A record to store, checked as makeCredential would check its inputs: a supported algorithm
    /// whose key is valid, a credential ID within the device's limit, a credProtect level and
    /// backup flags that exist, a 32-byte largeBlobKey if any. Every refusal is `CTAP1_ERR_INVALID_PARAMETER`; a record without
    /// its private key is `CTAP2_ERR_MISSING_PARAMETER`.
    init(importing record: CredentialRecord) throws(CTAPStatus) {
        guard let privateKey = record.privateKey else { throw .missingParameter }
        // An import names its RP (a U2F registration's application parameter is the device's to record).
        guard record.application == nil else { throw .invalidParameter }
        guard let algorithm = COSEAlgorithm(rawValue: record.algorithm), algorithm != .ecdhESHKDF256 else {
            throw .unsupportedAlgorithm
        }
        guard (1...Self.maxImportedIDLength).contains(record.id.count), record.user.id.count <= 64 else {
            throw .invalidParameter
        }
        guard (try? CredentialKey(algorithm: algorithm, rawRepresentation: privateKey).publicKey()) != nil else {
            throw .invalidParameter
        }
        let credProtect = record.credProtect ?? 1
        guard (1...3).contains(credProtect) else { throw .invalidParameter }
        guard let backup = BackupFlags(eligible: record.backupEligible ?? false, backedUp: record.backupState ?? false)
        else {
            throw .invalidParameter
        }
        guard let signCount = UInt32(exactly: record.signCount ?? 0) else { throw .invalidParameter }
        if let key = record.largeBlobKey, key.count != LargeBlobKey.keyLength { throw .invalidParameter }
        self.init(
            id: record.id, rp: record.rp, user: record.user, algorithm: algorithm, privateKey: privateKey,
            signCount: signCount,
            createdAt: record.createdAt.map { Date(timeIntervalSince1970: TimeInterval($0)) } ?? Date(),
            credProtect: UInt8(credProtect))
        self.backup = backup
        countsSignatures = record.countsSignatures
        largeBlobKey = record.largeBlobKey
    }
}
