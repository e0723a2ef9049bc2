import ArgumentParser
import WebAuthn

/// `passkeyctl list`: every discoverable credential, grouped by RP.
struct ListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list", abstract: "List the discoverable credentials, grouped by relying party.")

    @OptionGroup var global: GlobalOptions
    @Option(name: .customLong("rp"), help: "Only this RP ID's credentials.")
    var rpID: String?

    func run() async throws {
        let connection = global.connect()
        let management = try await connection.managementSession(pinFile: global.pinFile)
        let catalog = try await CredentialCatalog.load(management, connection: connection, rpID: rpID)
        if global.json {
            Output.json(
                .object([
                    (
                        "relyingParties",
                        .array(
                            catalog.groups.map { group in
                                .object([
                                    ("id", .string(group.rp.id)),
                                    ("name", .optional(group.rp.name)),
                                    (
                                        "credentials",
                                        .array(
                                            group.credentials.map {
                                                CredentialCatalog.Entry(rp: group.rp, credential: $0).json
                                            })
                                    )
                                ])
                            })
                    )
                ]))
            return
        }
        if catalog.groups.isEmpty {
            print(rpID.map { "No discoverable credentials for \($0)." } ?? "No discoverable credentials.")
            return
        }
        let short = catalog.shortIDLength
        var blocks: [String] = []
        for group in catalog.groups {
            let title =
                group.rp.id + (group.rp.name.map { $0.isEmpty || $0 == group.rp.id ? "" : "  (\($0))" } ?? "")
                + "  — \(group.credentials.count) credential\(group.credentials.count == 1 ? "" : "s")"
            let rows = group.credentials.map { credential -> [String] in
                let id = Base64URL.encode(credential.credentialID)
                return [
                    id.count > short ? String(id.prefix(short)) + "…" : id,
                    credential.user.name ?? "",
                    credential.user.displayName ?? "",
                    Base64URL.encode(credential.user.id),
                    Names.algorithm(credential.publicKey.algorithm.rawValue),
                    Names.protection(credential.credProtect)
                ]
            }
            blocks.append(
                title + "\n"
                    + Output.table(
                        ["CREDENTIAL ID", "USER", "DISPLAY NAME", "USER HANDLE", "ALG", "PROTECTION"], rows,
                        indent: "  "))
        }
        print(blocks.joined(separator: "\n\n"))
    }
}
