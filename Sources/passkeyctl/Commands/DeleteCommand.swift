import ArgumentParser
import PasskeyClient

/// `passkeyctl delete`: by credential ID (or a unique prefix), or every credential of an RP.
struct DeleteCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete", abstract: "Delete discoverable credentials.",
        discussion: """
            Name credentials by their base64url ID or a unique prefix of it (as `list` shows), or by --rp RPID (optionally with --user NAME). An ambiguous prefix lists the matches and deletes nothing. An ID that begins with '-' is taken as an ID (after `--` it always is).
            """)

    @OptionGroup var global: GlobalOptions
    // base64url IDs may begin with '-': what is not one of our options is a credential name.
    @Argument(
        parsing: .allUnrecognized,
        help: ArgumentHelp("Credential IDs (base64url) or unique prefixes.", valueName: "credential-id"))
    var arguments: [String] = []

    /// The credential names, without the `--` that `.allUnrecognized` keeps.
    var credentials: [String] {
        guard let separator = arguments.firstIndex(of: "--") else { return arguments }
        var names = arguments
        names.remove(at: separator)
        return names
    }
    @Option(name: .customLong("rp"), help: "Delete this RP ID's credentials.")
    var rpID: String?
    @Option(help: "With --rp: only the credentials of this user name.")
    var user: String?
    @Flag(help: "Do not ask for confirmation.")
    var yes = false

    func validate() throws {
        if credentials.isEmpty && rpID == nil {
            throw ValidationError("Name credentials to delete, or give --rp RPID.")
        }
        if !credentials.isEmpty && rpID != nil { throw ValidationError("Give credential IDs or --rp, not both.") }
        if user != nil && rpID == nil { throw ValidationError("--user needs --rp.") }
    }

    func run() async throws {
        let connection = global.connect()
        let management = try await connection.managementSession(pinFile: global.pinFile)
        let catalog = try await CredentialCatalog.load(management, connection: connection, rpID: rpID)
        var chosen: [CredentialCatalog.Entry] = []
        if let rpID {
            chosen = catalog.entries.filter { user == nil || $0.credential.user.name == user }
            if chosen.isEmpty {
                throw Failure.notFound(
                    "No credential for \(rpID)\(user.map { " with user name \($0)" } ?? ""); nothing was deleted.")
            }
        } else {
            // Every name is resolved before anything is deleted.
            for text in credentials {
                let entry = try catalog.resolve(text)
                if !chosen.contains(where: { $0.id == entry.id }) { chosen.append(entry) }
            }
        }
        try Confirmation.require(
            yes: yes,
            question: "Delete \(chosen.count) credential\(chosen.count == 1 ? "" : "s")?\n"
                + chosen.map { "  \($0.id)  \($0.rp.id)  \($0.credential.user.name ?? "")" }.joined(separator: "\n"))
        for entry in chosen {
            let id = entry.credential.credentialID
            try await connection.run { () async throws(CTAP2Error) in try await management.deleteCredential(id: id) }
        }
        if global.json {
            Output.json(.object([("deleted", .array(chosen.map(\.json)))]))
        } else {
            for entry in chosen {
                print("Deleted \(entry.id) (\(entry.rp.id), \(entry.credential.user.name ?? "no user name")).")
            }
        }
    }
}
