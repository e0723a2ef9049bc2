import CTAP
import Foundation
import PasskeyClient
import PasskeydTestSupport
import Testing

/// `--presence`, `--uv` and `--log-level`, as flags and as PASSKEYD_* variables.
@Suite struct ModeTests {
    /// A discoverable makeCredential's outcome: the status it failed with, or nil on success.
    static func registrationStatus(_ daemon: PasskeydProcess, uv: Bool = false) async throws -> CTAPStatus? {
        do {
            try await daemon.register(rp: "example.com", user: "alice", uv: uv)
            return nil
        } catch CTAP2Error.status(let status) {
            return status
        }
    }

    @Test(
        arguments: [
            (["--presence", "deny"], [:]),
            ([], ["PASSKEYD_PRESENCE": "deny"])
        ] as [([String], [String: String])])
    func presenceDenyRefusesEveryTouch(arguments: [String], environment: [String: String]) async throws {
        try await PasskeydProcess.with(arguments + ["--uv", "off"], environment: environment) { daemon in
            let status = try await Self.registrationStatus(daemon)
            #expect(status == .operationDenied)
        }
    }

    @Test func thePresenceFlagWinsOverTheEnvironment() async throws {
        try await PasskeydProcess.with(
            ["--presence", "auto", "--uv", "off"], environment: ["PASSKEYD_PRESENCE": "deny"]
        ) { daemon in
            let status = try await Self.registrationStatus(daemon)
            #expect(status == nil, "the flag's auto, not the environment's deny")
        }
    }

    /// getInfo's `uv` option (CTAP 2.1 §6.4): absent with built-in UV off, true when it is configured.
    @Test(
        arguments: [
            (["--uv", "off"], [:], nil),
            (["--uv", "auto"], [:], true),
            ([], ["PASSKEYD_UV": "off"], nil),
            ([], [:], true),
            (["--uv", "off"], ["PASSKEYD_UV": "auto"], nil)
        ] as [([String], [String: String], Bool?)])
    func uvDecidesWhatGetInfoAdvertises(arguments: [String], environment: [String: String], uv: Bool?) async throws {
        try await PasskeydProcess.with(arguments, environment: environment) { daemon in
            let info = try await daemon.withSession { try await $0.getInfo() }
            #expect(info.options["uv"] == uv)
        }
    }

    /// A refused built-in verification is a failed match (CTAP 2.1 §6.5.5.7.3); `auto` always matches.
    @Test(arguments: [("deny", CTAPStatus.uvInvalid), ("auto", nil)] as [(String, CTAPStatus?)])
    func uvModeDecidesBuiltInVerification(mode: String, status: CTAPStatus?) async throws {
        try await PasskeydProcess.with(["--uv", mode]) { daemon in
            let outcome = try await Self.registrationStatus(daemon, uv: true)
            #expect(outcome == status)
        }
    }

    @Test(
        arguments: [
            ([], [:], true),
            (["--log-level", "error"], [:], false),
            ([], ["PASSKEYD_LOG_LEVEL": "error"], false),
            (["--log-level", "info"], ["PASSKEYD_LOG_LEVEL": "error"], true)
        ] as [([String], [String: String], Bool)])
    func theLogLevelDecidesWhetherStartUpIsLogged(arguments: [String], environment: [String: String], logged: Bool)
        async throws
    {
        try await PasskeydProcess.with(arguments, environment: environment) { daemon in
            // Start-up's info lines (the keystore opened, the socket listening) come before readiness.
            let infoLines = daemon.log.split(separator: "\n").filter { $0.contains(" info ") }
            #expect(infoLines.contains { $0.contains(daemon.socket) } == logged, "log: \(daemon.log)")
            if !logged { #expect(infoLines.isEmpty) }
        }
    }
}
