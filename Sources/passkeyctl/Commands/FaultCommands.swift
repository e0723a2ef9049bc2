import ArgumentParser
import CTAP
import PasskeyClient

/// `passkeyctl fault set|list|clear`: deliberate misbehaviour for testing a relying party
/// (docs/testing-your-relying-party.md). Faults live in the daemon's memory only.
struct FaultCommands: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fault", abstract: "Make the authenticator misbehave on purpose, to test a relying party.",
        subcommands: [FaultSetCommand.self, FaultListCommand.self, FaultClearCommand.self, FaultControlsCommand.self])

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

/// `passkeyctl fault controls`: the run-time settings of Chrome's virtual-authenticator
/// vocabulary (vendor command CONTROLS, docs/vendor-commands.md), for suites that drive passkeyd
/// from another language than Python: user verification, automatic presence, and the response
/// override bits, held until changed. Memory only: a restart is back to the daemon's flags.
struct FaultControlsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "controls", abstract: "Show or change user verification, presence and the response override bits.",
        discussion: """
            --override takes a comma-separated list of bogus-signature, bad-uv, bad-up, or none; it holds for             every makeCredential and getAssertion until changed (Chrome's setResponseOverrideBits). Without             options, shows the settings.
            """)
    @OptionGroup var global: GlobalOptions
    @Option(name: .customLong("user-verified"), help: "Built-in UV succeeds (on) or fails (off).")
    var userVerified: CredentialFlagsCommand.Switch?
    @Option(
        name: .customLong("automatic-presence"), help: "Presence approved at once (on) or waiting for approve (off).")
    var automaticPresence: CredentialFlagsCommand.Switch?
    @Option(help: "bogus-signature, bad-uv, bad-up (comma-separated), or none.") var override: String?
    @Flag(help: "Every setting back to what the daemon's flags say.") var reset = false

    func validate() throws {
        _ = try overrides()
    }

    private func overrides() throws(ValidationError) -> ResponseOverrides? {
        guard let override else { return nil }
        var bits = ResponseOverrides()
        for name in override.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) {
            switch name {
            case "bogus-signature": bits.bogusSignature = true
            case "bad-uv": bits.badUV = true
            case "bad-up": bits.badUP = true
            case "none": break
            default:
                throw ValidationError("--override takes bogus-signature, bad-uv, bad-up or none, not '\(name)'")
            }
        }
        return bits
    }

    func run() async throws {
        let overrides: ResponseOverrides?
        do { overrides = try self.overrides() } catch { throw Failure.usage(error.message) }
        let (connection, controls) = FaultCommands.controls(global)
        let change = ControlSettings(
            userVerified: userVerified?.value, automaticPresence: automaticPresence?.value,
            responseOverrides: overrides)
        let reset = reset
        let settings = try await connection.run { () async throws(CTAP2Error) -> ControlSettings in
            if reset { _ = try await controls.reset() }
            return change == ControlSettings() ? try await controls.settings() : try await controls.apply(change)
        }
        let bits = settings.responseOverrides ?? ResponseOverrides()
        let names = bits.faults.map(\.name)
        func word(_ value: Bool?, _ yes: String, _ no: String) -> String {
            value.map { $0 ? yes : no } ?? "as configured"
        }
        if global.json {
            Output.json(
                .object([
                    ("userVerified", .optional(settings.userVerified)),
                    ("automaticPresence", .optional(settings.automaticPresence)),
                    ("overrides", .array(names.map { .string($0) })),
                    ("conditionalAnswer", .bool(settings.conditional != nil))
                ]))
        } else {
            print("user verification: \(word(settings.userVerified, "succeeds", "fails"))")
            print("presence: \(word(settings.automaticPresence, "automatic", "waits for approve"))")
            print("response overrides: \(names.isEmpty ? "none" : names.joined(separator: ", "))")
            if settings.conditional != nil { print("the next conditional request has its answer set") }
        }
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
