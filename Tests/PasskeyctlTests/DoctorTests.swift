import Foundation
import PasskeydLocal
import PasskeydTestSupport
import Testing

/// `passkeyctl doctor`: a healthy setup passes and says where things are and why; each broken
/// one is named with its fix and the exit status of its kind.
@Suite struct DoctorTests {
    /// `doctor --json`: the exit status and the checks by name.
    static func doctor(_ environment: [String: String], _ arguments: [String] = []) async throws -> (
        status: Int32, checks: [String: [String: Any]], run: ProcessRun
    ) {
        let run = try await ProcessRun.run(
            try BuiltProducts.executable("passkeyctl"), ["doctor", "--json"] + arguments, environment: environment)
        let report = try run.json
        var checks: [String: [String: Any]] = [:]
        for check in report["checks"] as? [[String: Any]] ?? [] {
            if let name = check["check"] as? String { checks[name] = check }
        }
        #expect(report["healthy"] as? Bool == (run.status == 0), "healthy agrees with the exit status")
        return (run.status, checks, run)
    }

    @Test func aHealthySetupPassesAndSaysWhereAndWhy() async throws {
        try await withDaemon { daemon in
            let environment = ["PASSKEYD_SOCKET": daemon.socket, "PASSKEYD_DATA_DIR": daemon.dataDirectory]
            let doctor = try await Self.doctor(environment)
            #expect(doctor.status == 0, "\(doctor.run.stdout)")
            #expect(doctor.checks["socket"]?["verdict"] as? String == "ok")
            #expect(doctor.checks["socket"]?["found"] as? String == "\(daemon.socket) (from PASSKEYD_SOCKET)")
            #expect(doctor.checks["socket folder"]?["verdict"] as? String == "ok")
            #expect((doctor.checks["socket file"]?["found"] as? String)?.contains("mode 600") == true)
            let answer = try #require(doctor.checks["daemon"]?["found"] as? String)
            #expect(answer.contains("passkeyd \(PasskeydVersion.text) answers (pid \(daemon.pid)"))
            #expect(doctor.checks["version"] == nil, "no version problem")
            #expect(doctor.checks["profile"]?["found"] as? String == "fido2.1")
            #expect(doctor.checks["PIN"]?["verdict"] as? String == "note")
            #expect(
                doctor.checks["PIN"]?["advice"] as? String
                    == "sites that ask for user verification need one: `passkeyctl pin set`")
            #expect(
                (doctor.checks["keystore"]?["found"] as? String)?.hasPrefix(
                    "\(daemon.dataDirectory) (from PASSKEYD_DATA_DIR; ") == true)

            #expect(try await daemon.ctl(["pin", "set"], newPIN: "4321").status == 0)
            let withPIN = try await Self.doctor(environment)
            #expect(withPIN.status == 0)
            #expect(withPIN.checks["PIN"]?["verdict"] as? String == "ok")
            #expect(withPIN.checks["PIN"]?["found"] as? String == "set, 8 tries left")

            let text = try await ProcessRun.run(
                try BuiltProducts.executable("passkeyctl"), ["doctor"], environment: environment)
            #expect(text.status == 0)
            #expect(text.stdout.contains("[ok] daemon: passkeyd \(PasskeydVersion.text) answers"))
        }
    }

    @Test func noDaemonIsAProblemWithHowToStartOne() async throws {
        let folder = try TemporaryFolder("pkd-doctor")
        defer { folder.remove() }
        let doctor = try await Self.doctor([
            "PASSKEYD_SOCKET": folder.appending("ctaphid.sock"), "PASSKEYD_DATA_DIR": folder.appending("data")
        ])
        #expect(doctor.status == 2)
        #expect(doctor.checks["socket folder"]?["verdict"] as? String == "ok")
        #expect(doctor.checks["socket file"]?["verdict"] as? String == "problem")
        #expect((doctor.checks["socket file"]?["advice"] as? String)?.contains("passkeyd --detach") == true)
        #expect(
            (doctor.checks["socket file"]?["advice"] as? String)?.contains(
                "systemctl --user enable --now passkeyd.socket") == true)
        #expect(doctor.checks["daemon"] == nil, "nothing to connect to")
        #expect(doctor.checks["keystore"]?["verdict"] as? String == "note", "a keystore not made yet is no problem")
    }

    @Test func aFolderOthersCanWriteIsAProblemWithItsChmod() async throws {
        let folder = try TemporaryFolder("pkd-doctor")
        defer { folder.remove() }
        chmod(folder.path, 0o777)
        let doctor = try await Self.doctor(["PASSKEYD_SOCKET": folder.appending("ctaphid.sock")])
        #expect(doctor.status == 2)
        #expect(doctor.checks["socket folder"]?["verdict"] as? String == "problem")
        #expect((doctor.checks["socket folder"]?["found"] as? String)?.contains("mode 777") == true)
        #expect(doctor.checks["socket folder"]?["advice"] as? String == "chmod 700 \(folder.path)")
        #expect(doctor.checks["daemon"] == nil, "a refused folder is not connected to")
    }

    @Test func aSocketLeftByADeadDaemonIsAProblemThatRestartingFixes() async throws {
        let folder = try TemporaryFolder("pkd-doctor")
        defer { folder.remove() }
        let socket = folder.appending("ctaphid.sock")
        try HandMadeSocket.stale(at: socket)
        chmod(socket, 0o600)
        let doctor = try await Self.doctor(["PASSKEYD_SOCKET": socket])
        #expect(doctor.status == 2)
        #expect(doctor.checks["socket file"]?["verdict"] as? String == "ok")
        #expect(doctor.checks["daemon"]?["verdict"] as? String == "problem")
        #expect((doctor.checks["daemon"]?["found"] as? String)?.contains("No daemon at \(socket)") == true)
        #expect((doctor.checks["daemon"]?["advice"] as? String)?.contains("left from one that died") == true)
    }

    @Test func anExposedKeyFileIsAProblemWithItsChmod() async throws {
        try await withDaemon { daemon in
            let keyFile = daemon.dataDirectory + "/keystore.key"
            chmod(keyFile, 0o644)
            let doctor = try await Self.doctor([
                "PASSKEYD_SOCKET": daemon.socket, "PASSKEYD_DATA_DIR": daemon.dataDirectory
            ])
            #expect(doctor.status == 7)
            #expect(doctor.checks["key file"]?["advice"] as? String == "chmod 600 \(keyFile)")
            #expect(doctor.checks["daemon"]?["verdict"] as? String == "ok", "the running daemon still answers")
        }
    }

    @Test func theSocketsReasonFollowsTheEnvironment() async throws {
        let runtime = try TemporaryFolder("pkd-runtime")
        defer { runtime.remove() }
        let underRuntime = try await Self.doctor(["XDG_RUNTIME_DIR": runtime.path])
        #expect(
            underRuntime.checks["socket"]?["found"] as? String
                == "\(runtime.path)/passkeyd/ctaphid.sock (under XDG_RUNTIME_DIR, the login session's private folder)")
        #expect(underRuntime.checks["socket folder"]?["verdict"] as? String == "note", "passkeyd creates it")

        let fallback = try await Self.doctor([:])
        let found = try #require(fallback.checks["socket"]?["found"] as? String)
        #expect(
            found.hasPrefix("/tmp/passkeyd-\(getuid())/ctaphid.sock (the /tmp fallback: XDG_RUNTIME_DIR is not set"))
        #expect(fallback.checks["socket"]?["verdict"] as? String == "note")
    }

    @Test func theVersionsAgree() async throws {
        let ctl = try await ProcessRun.run(try BuiltProducts.executable("passkeyctl"), ["--version"])
        let daemon = try await ProcessRun.run(try BuiltProducts.executable("passkeyd"), ["--version"])
        #expect(ctl.status == 0 && daemon.status == 0)
        #expect(ctl.stdout == "\(PasskeydVersion.text)\n")
        #expect(daemon.stdout == ctl.stdout)
    }
}

extension DoctorTests {
    @Test func aU2FOnlyKeyIsReportedWithoutAPINCheck() async throws {
        try await withDaemon(["--profile", "u2f"]) { daemon in
            let doctor = try await Self.doctor([
                "PASSKEYD_SOCKET": daemon.socket, "PASSKEYD_DATA_DIR": daemon.dataDirectory
            ])
            #expect(doctor.status == 0, "\(doctor.run.stdout)")
            #expect(doctor.checks["profile"]?["found"] as? String == "u2f")
            #expect(doctor.checks["PIN"]?["verdict"] as? String == "note")
        }
    }
}

extension DoctorTests {
    /// Built-in UV answers sites that ask for user verification: no PIN is then nothing to fix.
    @Test func builtInUVMakesAMissingPINNoProblem() async throws {
        try await withDaemon(["--uv", "auto"]) { daemon in
            let doctor = try await Self.doctor([
                "PASSKEYD_SOCKET": daemon.socket, "PASSKEYD_DATA_DIR": daemon.dataDirectory
            ])
            #expect(doctor.status == 0, "\(doctor.run.stdout)")
            #expect(doctor.checks["PIN"]?["verdict"] as? String == "ok")
            #expect((doctor.checks["PIN"]?["found"] as? String)?.contains("built-in user verification") == true)
            #expect(doctor.checks["PIN"]?["advice"] as? String == nil, "nothing to fix")
        }
    }
}
