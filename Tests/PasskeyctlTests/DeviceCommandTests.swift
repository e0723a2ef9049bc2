import CTAP
import Foundation
import PasskeyClient
import PasskeydTestSupport
import Testing

/// `status`, `approve`/`deny`, `replug` and `reset` against a real daemon.
@Suite struct DeviceCommandTests {
    @Test func noDaemonIsExitTwoWithASentence() async throws {
        let socket = FileManager.default.temporaryDirectory.appendingPathComponent(
            "passkeyctl-none-\(UUID().uuidString.prefix(8)).sock"
        ).path
        let run = try await ProcessRun.run(
            try BuiltProducts.executable("passkeyctl"), ["status"], environment: ["PASSKEYD_SOCKET": socket])
        #expect(run.status == 2)
        #expect(run.stderr.contains("No daemon at \(socket)"))
        #expect(run.stderr.contains("passkeyd --detach"))
        let json = try await ProcessRun.run(
            try BuiltProducts.executable("passkeyctl"), ["--socket", socket, "list", "--json"], environment: [:])
        #expect(json.status == 2)
        #expect((try json.json["error"] as? [String: Any])?["kind"] as? String == "no-daemon")
    }

    @Test func statusSaysWhereAndSinceWhen() async throws {
        // Taken before the daemon starts (with the clock's second resolution to spare): under load the
        // daemon may have been up a long while before the closure runs.
        let before = Date().addingTimeInterval(-1)
        try await withDaemon { daemon in
            let run = try await daemon.ctl(["status", "--json"])
            #expect(run.status == 0)
            let status = try run.json
            #expect(status["running"] as? Bool == true)
            #expect(status["pid"] as? Int == Int(daemon.pid))
            #expect(status["socket"] as? String == daemon.socket)
            #expect(status["pending"] as? String == "none")
            let started = try #require((status["startedAt"] as? String).flatMap { try? Date($0, strategy: .iso8601) })
            #expect(started > before && started <= Date())
            // The socket given as a flag before the command works as well as the environment.
            let flag = try await ProcessRun.run(
                try BuiltProducts.executable("passkeyctl"), ["--socket", daemon.socket, "status"], environment: [:])
            #expect(flag.status == 0)
            #expect(flag.stdout.contains("pid \(daemon.pid)"))
        }
    }

    @Test func statusAndInfoShowTheProfile() async throws {
        try await withDaemon(["--profile", "fido2.0"]) { daemon in
            let status = try await daemon.ctl(["status", "--json"])
            #expect(try status.json["profile"] as? String == "fido2.0")
            let info = try await daemon.ctl(["info", "--json"])
            #expect(info.status == 0)
            #expect(try info.json["profile"] as? String == "fido2.0")
            #expect(try info.json["versions"] as? [String] == ["U2F_V2", "FIDO_2_0"])
            #expect(try info.json["generation"] as? String == "CTAP 2.0")
            #expect(try await daemon.ctl(["status"]).stdout.contains("as a fido2.0 key"))
        }
        try await withDaemon(["--profile", "u2f"]) { daemon in
            let info = try await daemon.ctl(["info"])
            #expect(info.status == 0)
            #expect(info.stdout.contains("u2f (CTAP1/U2F only"))
            #expect(info.stdout.contains("generation  CTAP1/U2F"))
        }
        // The two generations getInfo names besides: the review draft's FIDO_2_1_PRE and FIDO_2_2.
        for (profile, generation) in [("fido2.1-pre", "CTAP 2.1-PRE (review draft)"), ("fido2.2", "CTAP 2.2")] {
            try await withDaemon(["--profile", profile]) { daemon in
                let info = try await daemon.ctl(["info"])
                #expect(info.status == 0)
                #expect(info.stdout.contains(generation), "\(profile): \(info.stdout)")
            }
        }
    }

    @Test func approveAndDenyAnswerThePendingPresencePrompt() async throws {
        try await withDaemon(["--presence", "prompt"]) { daemon in
            let idle = try await daemon.ctl(["approve"])
            #expect(idle.status == 5)
            #expect(idle.stderr.contains("No presence request is pending"))

            for approve in [false, true] {
                let registration = Task { try await daemon.register(rp: "example.com", user: "alice") }
                try await Self.waitForPendingPresence(daemon)
                #expect(try await daemon.ctl([approve ? "approve" : "deny"]).status == 0)
                let outcome = await registration.result
                if approve {
                    #expect(throws: Never.self) { try outcome.get() }
                } else {
                    #expect(throws: CTAP2Error.status(.operationDenied)) { try outcome.get() }
                }
            }
        }
    }

    /// Polls `status` until the daemon reports a presence prompt (at most ~10 s).
    static func waitForPendingPresence(_ daemon: PasskeydProcess) async throws {
        for _ in 0..<200 {
            if try await daemon.ctl(["status", "--json"]).json["pending"] as? String == "presence" { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw FixtureError("no presence prompt became pending")
    }

    @Test func resetRightAfterReplugErasesEverything() async throws {
        try await withDaemon { daemon in
            try await daemon.register(rp: "example.com", user: "alice")
            #expect(try await daemon.ctl(["pin", "set"], newPIN: "4242").status == 0)
            // Without a terminal and without --yes nothing is erased.
            let unconfirmed = try await daemon.ctl(["reset"])
            #expect(unconfirmed.status == 1)
            #expect(unconfirmed.stderr.contains("--yes"))
            #expect(try await daemon.listed(pin: "4242").count == 1)

            #expect(try await daemon.ctl(["replug"]).status == 0)
            let reset = try await daemon.ctl(["reset", "--yes"])
            #expect(reset.status == 0, "\(reset.stderr)")
            #expect(reset.stdout.contains("every credential"))
            #expect(try await daemon.ctl(["pin", "status", "--json"]).json["set"] as? Bool == false)
            try await daemon.register(rp: "other.org", user: "bob", uv: false)
            #expect(try await daemon.ctl(["pin", "set"], newPIN: "4242").status == 0)
            #expect(try await daemon.listed(pin: "4242").compactMap { $0["rpId"] as? String } == ["other.org"])
        }
    }

    /// The one slow test: the daemon's clock cannot be moved, so it waits out the 10-second window.
    @Test func resetAfterTheWindowIsRefusedWithTheWayOut() async throws {
        try await withDaemon { daemon in
            try await daemon.register(rp: "example.com", user: "alice")
            try await Task.sleep(for: .seconds(11))
            let refused = try await daemon.ctl(["reset", "--yes"])
            #expect(refused.status == 8)
            #expect(refused.stderr.contains("10 seconds"))
            #expect(refused.stderr.contains("--replug"))
            #expect(try await daemon.ctl(["pin", "set"], newPIN: "4242").status == 0)
            #expect(try await daemon.listed(pin: "4242").count == 1)
            // --replug opens the window again.
            #expect(try await daemon.ctl(["reset", "--replug", "--yes"]).status == 0)
            #expect(try await daemon.ctl(["pin", "status", "--json"]).json["set"] as? Bool == false)
        }
    }
}
