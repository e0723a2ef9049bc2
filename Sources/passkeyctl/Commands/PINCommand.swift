import ArgumentParser
import CTAP
import PasskeyClient

/// `passkeyctl pin set|change|status` (CTAP 2.1 §6.5.5).
struct PINCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pin", abstract: "Set, change or inspect the authenticator's PIN.",
        subcommands: [SetPIN.self, ChangePIN.self, PINStatus.self])

    /// What `set` and `change` start with: getInfo, a refusal unless a PIN is set exactly when
    /// the subcommand needs one (setPIN wants none, CTAP 2.1 §6.5.5.5; changePIN one, §6.5.5.6),
    /// and a clientPIN session.
    static func begin(_ global: GlobalOptions, pinSet needed: Bool, otherwise refusal: String) async throws
        -> (Connection, GetInfoResponse, ClientPINSession)
    {
        let connection = global.connect()
        let info = try await connection.info()
        guard (info.options["clientPin"] == true) == needed else { throw Failure.refused(refusal) }
        return (connection, info, try connection.clientPIN(info))
    }

    struct SetPIN: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set", abstract: "Set the PIN on an authenticator that has none.")

        @OptionGroup var global: GlobalOptions
        @OptionGroup var newPIN: NewPINSource

        func run() async throws {
            let (connection, info, clientPIN) = try await PINCommand.begin(
                global, pinSet: false, otherwise: "A PIN is already set; change it with `passkeyctl pin change`.")
            let pin = try newPIN.read(for: info)
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
            let (connection, info, clientPIN) = try await PINCommand.begin(
                global, pinSet: true, otherwise: "No PIN is set; set one with `passkeyctl pin set`.")
            let current = try PINEntry.current(file: global.pinFile)
            let new = try newPIN.read(for: info)
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

    /// The new PIN, refused unless it meets the device's policy (`PINPolicy`).
    func read(for info: GetInfoResponse) throws -> String {
        let pin = try PINEntry.new(file: file)
        try PINPolicy.check(pin, info: info)
        return pin
    }
}
