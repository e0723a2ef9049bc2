import ArgumentParser
import PasskeyClient

/// `passkeyctl reset`: authenticatorReset (CTAP 2.1 §6.6), which erases everything.
struct ResetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reset", abstract: "Erase every credential and the PIN.",
        discussion: """
            The authenticator accepts reset only within 10 seconds of power-up (for passkeyd: of its start or of `passkeyctl replug`), and only with user presence. --replug replugs right before resetting.
            """)

    @OptionGroup var global: GlobalOptions
    @Flag(help: "Do not ask for confirmation.")
    var yes = false
    @Flag(help: "Replug first, so the reset falls inside the 10-second window.")
    var replug = false

    func run() async throws {
        try Confirmation.require(
            yes: yes,
            question:
                "Reset the authenticator? Every credential on it goes, and its PIN; sign-ins that use them will stop working. There is no undo."
        )
        let connection = global.connect()
        if replug { _ = try await connection.vendor(.replug) }
        do {
            try await connection.run { () async throws(CTAP2Error) in try await connection.session.reset() }
        } catch .device(.notAllowed) {
            throw Failure.refused(refusal)
        }
        Report.done(json: global.json, "Reset done: every credential and the PIN are gone.")
    }

    private var refusal: String {
        "The authenticator accepts reset only within 10 seconds of power-up, and that window has passed. "
            + "Run `passkeyctl reset --replug` (or `passkeyctl replug` and reset right after)."
    }
}
