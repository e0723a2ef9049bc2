import ArgumentParser
import CTAP
import PasskeyClient

/// `passkeyctl fault set|list|clear`: deliberate misbehaviour for testing a relying party
/// (docs/testing-your-relying-party.md). Faults live in the daemon's memory only.
struct FaultCommands: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fault", abstract: "Make the authenticator misbehave on purpose, to test a relying party.",
        subcommands: [FaultSetCommand.self, FaultListCommand.self, FaultClearCommand.self])

    static func show(_ rules: [FaultRule], json: Bool) {
        if json {
            Output.json(
                .array(
                    rules.map { rule in
                        .object([
                            ("fault", .string(rule.fault.name)), ("remaining", .optional(rule.remaining)),
                            ("rpId", .optional(rule.rpID))
                        ])
                    }))
        } else if rules.isEmpty {
            print("No faults armed.")
        } else {
            for rule in rules { print(rule.summary) }
        }
    }

    static func controls(_ global: GlobalOptions) -> (Connection, DeviceControls) {
        let connection = global.connect()
        return (connection, DeviceControls(transport: connection.transport))
    }
}

struct FaultSetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "set", abstract: "Arm a fault for the next matching transactions (makeCredential, getAssertion).",
        discussion: "KIND is one of: \(Fault.kinds.joined(separator: ", ")). A restart disarms every fault.")
    @OptionGroup var global: GlobalOptions
    @Argument(help: "The fault, e.g. bogus-signature, counter-rewind=5, latency=2000, status=PIN_INVALID.") var kind:
        String
    @Option(help: "How many matching transactions it applies to.") var count: Int?
    @Flag(help: "Apply it to every matching transaction until `fault clear`.") var always = false
    @Option(help: "Only transactions for this relying party ID.") var rp: String?

    func validate() throws {
        if always, count != nil { throw ValidationError("Give --count or --always, not both.") }
        if let count, count < 1 { throw ValidationError("--count must be at least 1.") }
        do { _ = try Fault(parsing: kind) } catch { throw ValidationError(error.description) }
    }

    func run() async throws {
        let fault: Fault
        do { fault = try Fault(parsing: kind) } catch { throw Failure.usage(error.description) }
        let (connection, controls) = FaultCommands.controls(global)
        let rules = try await connection.run { () async throws(CTAP2Error) in
            try await controls.arm(FaultRule(fault: fault, remaining: always ? nil : (count ?? 1), rpID: rp))
        }
        FaultCommands.show(rules, json: global.json)
    }
}

struct FaultListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "The armed faults, oldest first.")
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let (connection, controls) = FaultCommands.controls(global)
        FaultCommands.show(
            try await connection.run { () async throws(CTAP2Error) in try await controls.armedFaults() },
            json: global.json)
    }
}

struct FaultClearCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "clear", abstract: "Disarm every fault.")
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let (connection, controls) = FaultCommands.controls(global)
        try await connection.run { () async throws(CTAP2Error) in try await controls.clearFaults() }
        Report.done(json: global.json, "No faults armed.")
    }
}
