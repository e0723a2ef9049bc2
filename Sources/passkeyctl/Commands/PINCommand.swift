import ArgumentParser
import CTAP
import PasskeyClient

/// `passkeyctl pin set|change|status` (CTAP 2.1 §6.5.5).
struct PINCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pin", abstract: "Set, change or inspect the authenticator's PIN.",
        subcommands: [SetPIN.self, ChangePIN.self, PINStatus.self])

    struct SetPIN: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set", abstract: "Set the PIN on an authenticator that has none.")

        @OptionGroup var global: GlobalOptions
        @OptionGroup var newPIN: NewPINSource

        func run() async throws {
            let connection = global.connect()
            let info = try await connection.info()
            guard info.options["clientPin"] != true else {
                throw Failure.refused("A PIN is already set; change it with `passkeyctl pin change`.")
            }
            let clientPIN = try connection.clientPIN(info)
            let pin = try newPIN.read()
            try PINPolicy.check(pin, info: info)
            try await connection.token(clientPIN) { () async throws(CTAP2Error) in try await clientPIN.setPIN(pin) }
            Report.done(json: global.json, "PIN set.")
        }
    }

    struct ChangePIN: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "change", abstract: "Change the PIN (asks for the current one).")

        @OptionGroup var global: GlobalOptions
        @OptionGroup var newPIN: NewPINSource

        func run() async throws {
            let connection = global.connect()
            let info = try await connection.info()
            guard info.options["clientPin"] == true else {
                throw Failure.refused("No PIN is set; set one with `passkeyctl pin set`.")
            }
            let clientPIN = try connection.clientPIN(info)
            let current = try PINEntry.current(file: global.pinFile)
            let new = try newPIN.read()
            try PINPolicy.check(new, info: info)
            try await connection.token(clientPIN) { () async throws(CTAP2Error) in
                try await clientPIN.changePIN(from: current, to: new)
            }
            Report.done(json: global.json, "PIN changed.")
        }
    }

    struct PINStatus: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "status", abstract: "Whether a PIN is set and how many tries are left.")

        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let connection = global.connect()
            let info = try await connection.info()
            let state = try await PINState.read(connection, info: info)
            if global.json {
                Output.json(state.json)
            } else {
                print(
                    Output.table(["", ""], state.rows(minLength: info.minPINLength)).split(separator: "\n").dropFirst()
                        .joined(separator: "\n"))
            }
        }
    }
}

/// Where `pin set` and `pin change` take the new PIN from.
struct NewPINSource: ParsableArguments {
    @Option(
        name: .customLong("new-pin-file"),
        help: "Read the new PIN from this file; else $PASSKEYCTL_NEW_PIN, else a prompt (twice).")
    var file: String?

    func read() throws -> String {
        try PINEntry.new(file: file)
    }
}
