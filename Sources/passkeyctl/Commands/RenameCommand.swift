import ArgumentParser
import CTAP
import PasskeyClient

/// `passkeyctl rename`: updateUserInformation (CTAP 2.1 §6.8.7) on one credential.
struct RenameCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rename", abstract: "Change a credential's user name and display name (the user handle stays).",
        discussion: "base64url IDs may begin with '-': put the ID after `--` (passkeyctl rename --name N -- -AbC).")

    @OptionGroup var global: GlobalOptions
    @Argument(help: "The credential ID (base64url) or a unique prefix.")
    var credential: String
    @Option(help: "The new user name.")
    var name: String?
    @Option(name: .customLong("display-name"), help: "The new display name.")
    var displayName: String?

    func validate() throws {
        if name == nil && displayName == nil { throw ValidationError("Give --name, --display-name or both.") }
    }

    func run() async throws {
        let connection = global.connect()
        let management = try await connection.managementSession(pinFile: global.pinFile)
        var entry = try await CredentialCatalog.load(management, connection: connection).resolve(credential)
        let current = entry.credential.user
        // The spec replaces the whole user entity: fields not given keep their values.
        let user = PublicKeyCredentialUserEntity(
            id: current.id, name: name ?? current.name, displayName: displayName ?? current.displayName)
        let id = entry.credential.credentialID
        try await connection.run { () async throws(CTAP2Error) in
            try await management.updateUserInformation(credentialID: id, user: user)
        }
        entry.credential.user = user
        if global.json {
            Output.json(.object([("updated", entry.json)]))
        } else {
            print(
                "Updated \(entry.id) (\(entry.rp.id)): name \(user.name ?? "none"), display name \(user.displayName ?? "none")."
            )
        }
    }
}
