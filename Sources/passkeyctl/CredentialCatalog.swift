import CTAP
import PasskeyClient
import WebAuthn

/// Every discoverable credential on the authenticator, grouped by RP, and the lookups
/// `delete` and `rename` make on it.
struct CredentialCatalog: Sendable {
    struct Group: Sendable {
        var rp: PublicKeyCredentialRpEntity
        var credentials: [ResidentCredential]
    }

    struct Entry: Sendable {
        var rp: PublicKeyCredentialRpEntity
        var credential: ResidentCredential
        /// The credential ID in base64url, as the person types it.
        var id: String { Base64URL.encode(credential.credentialID) }
    }

    var groups: [Group]

    /// Enumerates RPs, then each RP's credentials (CTAP 2.1 §6.8.3–§6.8.5); `rpID` keeps only that RP.
    static func load(_ management: CredentialManagementSession, connection: Connection, rpID: String? = nil)
        async throws(Failure) -> CredentialCatalog
    {
        try await connection.run { () async throws(CTAP2Error) in
            var groups: [Group] = []
            for party in try await management.relyingParties() where rpID == nil || party.rp.id == rpID {
                let credentials = try await management.credentials(rpIDHash: party.rpIDHash)
                if !credentials.isEmpty { groups.append(Group(rp: party.rp, credentials: credentials)) }
            }
            return CredentialCatalog(groups: groups)
        }
    }

    var entries: [Entry] {
        groups.flatMap { group in group.credentials.map { Entry(rp: group.rp, credential: $0) } }
    }

    /// The credential a full ID or a unique prefix of one names.
    func resolve(_ text: String) throws(Failure) -> Entry {
        let all = entries
        if let exact = all.first(where: { $0.id == text }) { return exact }
        let matches = all.filter { $0.id.hasPrefix(text) }
        switch matches.count {
        case 0:
            throw .notFound(
                "No credential ID starts with '\(text)'; nothing was deleted or changed. `passkeyctl list` shows them.")
        case 1: return matches[0]
        default:
            throw .ambiguous(
                prefix: text, matches: matches.map { "\($0.id)  \($0.rp.id)  \($0.credential.user.name ?? "")" })
        }
    }

    /// How many leading characters of each ID the table shows: at least 12, and enough to be unique.
    var shortIDLength: Int {
        let ids = entries.map(\.id)
        var length = 12
        while length < (ids.map(\.count).max() ?? 0), Set(ids.map { $0.prefix(length) }).count < ids.count {
            length += 4
        }
        return length
    }
}

extension CredentialCatalog.Entry {
    /// One credential in `--json` output; the key set is stable (null when unknown).
    var json: JSON {
        let credential = credential
        return .object([
            ("credentialId", .string(id)),
            ("rpId", .string(rp.id)),
            ("userHandle", .string(Base64URL.encode(credential.user.id))),
            ("userName", .optional(credential.user.name)),
            ("displayName", .optional(credential.user.displayName)),
            ("algorithm", .string(Names.algorithm(credential.publicKey.algorithm.rawValue))),
            ("coseAlgorithm", .int(credential.publicKey.algorithm.rawValue)),
            // CTAP credential management reports no creation time (CTAP 2.1 §6.8.4).
            ("createdAt", .null),
            ("protection", .optional(Names.protectionIdentifier(credential.credProtect))),
            (CredProtect.identifier, .optional(credential.credProtect?.rawValue))
        ])
    }
}
