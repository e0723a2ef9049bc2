import CTAP
import Foundation
import PasskeydTestSupport
import Testing

/// `--detach`: the launcher returns once the socket accepts, the daemon runs on in its own
/// session, and a daemon that cannot start says why through the launcher.
@Suite struct DetachTests {
    @Test func theLauncherReturnsOnceTheSocketAccepts() async throws {
        try await PasskeydProcess.with(["--uv", "off"], mode: .detached) { daemon in
            // Right after the launcher exited, and the transport does not retry a refused connect.
            #expect(try await daemon.withSession { try await $0.getInfo() }.versions.contains("FIDO_2_1"))
            let launcher = try #require(daemon.launcher)
            #expect(launcher.stdout.contains("pid \(daemon.pid)"), "stdout: \(launcher.stdout)")
            #expect(launcher.stdout.contains(daemon.socket))
            #expect(try String(contentsOfFile: daemon.pidFile, encoding: .utf8) == "\(daemon.pid)\n")
            #expect(daemon.isRunning, "the daemon outlived its launcher")
            #expect(getsid(daemon.pid) == daemon.pid, "in a session of its own, away from the test's terminal")
        }
    }

    @Test func theDetachedDaemonLogsToTheLogFile() async throws {
        try await PasskeydProcess.with(["--uv", "off"], mode: .detached) { daemon in
            #expect(daemon.log.contains("ready"), "log: \(daemon.log)")
        }
    }

    @Test func sigtermStopsTheDetachedDaemonAndRemovesItsFiles() async throws {
        try await PasskeydProcess.with(["--uv", "off"], mode: .detached) { daemon in
            daemon.terminate(SIGTERM)
            #expect(!daemon.isRunning)
            #expect(!FileManager.default.fileExists(atPath: daemon.socket))
            #expect(!FileManager.default.fileExists(atPath: daemon.pidFile))
        }
    }

    @Test func aDaemonThatCannotStartFailsTheLauncherWithItsReason() throws {
        let folder = try TemporaryFolder("pkd-detach-fail")
        defer { folder.remove() }
        let missing = folder.appending("no-such-passphrase")
        let run = try PasskeydProcess.refusal(["--passphrase-file", missing], mode: .detached, in: folder)
        #expect(run.status != 0)
        #expect(run.stderr.contains(missing), "stderr: \(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder.appending("passkeyd.pid")))
        #expect(!FileManager.default.fileExists(atPath: folder.appending("ctaphid.sock")))
    }
}
