import CTAP
import Foundation
import PasskeyClient
import Testing

/// A real passkeyd on a temporary socket and data directory, started with `--detach`
/// (so it is ready when the launcher exits) and stopped with SIGTERM.
final class DaemonFixture: Sendable {
    let directory: URL
    let socket: String
    let pid: pid_t

    /// The built executables: next to the test bundle, else in the package's `.build/debug`.
    static func executable(_ name: String) throws -> URL {
        let besideTests = Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent(name)
        let besidePackage = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent(".build/debug/\(name)")
        for candidate in [Bundle.main.bundleURL.appendingPathComponent(name), besideTests, besidePackage]
        where FileManager.default.isExecutableFile(atPath: candidate.path) {
            return candidate
        }
        throw FixtureError("\(name) is not built; run `swift build --build-tests` first")
    }

    /// `arguments` go to passkeyd; built-in UV is off unless they say otherwise, so tests do not
    /// depend on the daemon's default.
    init(_ arguments: [String] = []) throws {
        let arguments = arguments.contains("--uv") ? arguments : arguments + ["--uv", "off"]
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("passkeyctl-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        socket = directory.appendingPathComponent("ctaphid.sock").path
        let pidFile = directory.appendingPathComponent("passkeyd.pid").path
        let launch = try Run.process(
            Self.executable("passkeyd"),
            ["--socket", socket, "--data-dir", directory.appendingPathComponent("data").path, "--detach",
             "--pid-file", pidFile, "--log-file", directory.appendingPathComponent("passkeyd.log").path] + arguments,
            environment: [:])
        guard launch.status == 0,
              let text = try? String(contentsOfFile: pidFile, encoding: .utf8),
              let pid = pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines))
        else { throw FixtureError("passkeyd did not start: \(launch.stderr)\(launch.stdout)") }
        self.pid = pid
    }

    /// SIGTERM, then waits (at most 5 s) for the process to go.
    func stop() {
        kill(pid, SIGTERM)
        for _ in 0..<100 where kill(pid, 0) == 0 { usleep(50_000) }
        try? FileManager.default.removeItem(at: directory)
    }

    /// Runs passkeyctl against this daemon with only the environment given (plus PATH and HOME).
    func ctl(_ arguments: [String], pin: String? = nil, newPIN: String? = nil) throws -> Run {
        var environment = ["PASSKEYD_SOCKET": socket]
        if let pin { environment["PASSKEYCTL_PIN"] = pin }
        if let newPIN { environment["PASSKEYCTL_NEW_PIN"] = newPIN }
        return try Run.process(Self.executable("passkeyctl"), arguments, environment: environment)
    }

    /// A CTAP2 session of our own on the daemon's socket, closed after `body`.
    func withSession<T>(_ body: (CTAP2Session) async throws -> T) async throws -> T {
        let transport = UnixSocketTransport(path: socket)
        let session = CTAP2Session(transport: transport)
        do {
            let result = try await body(session)
            await transport.close()
            return result
        } catch {
            await transport.close()
            throw error
        }
    }
}

/// Starts a daemon for `body` and stops it afterwards, whatever happens.
func withDaemon(_ arguments: [String] = [], _ body: (DaemonFixture) async throws -> Void) async throws {
    let daemon = try DaemonFixture(arguments)
    defer { daemon.stop() }
    try await body(daemon)
}

struct FixtureError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// One finished process: exit status and what it wrote.
struct Run: Sendable {
    let status: Int32
    let stdout: String
    let stderr: String

    /// The standard output parsed as a JSON object.
    var json: [String: Any] {
        get throws {
            guard let object = try JSONSerialization.jsonObject(with: Data(stdout.utf8)) as? [String: Any] else {
                throw FixtureError("not a JSON object: \(stdout)")
            }
            return object
        }
    }

    /// posix_spawn and a blocking waitpid: Foundation's Process misses child exits when
    /// several tests wait at once on the cooperative pool.
    static func process(_ executable: URL, _ arguments: [String], environment: [String: String]) throws -> Run {
        var env = environment
        for key in ["PATH", "HOME"] { env[key] = ProcessInfo.processInfo.environment[key] }
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("passkeyctl-run-\(UUID().uuidString)").path
        let outPath = base + ".out"
        let errPath = base + ".err"
        defer {
            unlink(outPath)
            unlink(errPath)
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        // Not a terminal: passkeyctl must never prompt here. Files rather than pipes, so a
        // chatty child can never stall on a full pipe.
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let argv = ([executable.path] + arguments).map { strdup($0) } + [nil]
        let envp = env.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable.path, &actions, nil, argv, envp)
        guard spawned == 0 else { throw FixtureError("cannot start \(executable.path): \(String(cString: strerror(spawned)))") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        // WIFEXITED / WEXITSTATUS, which Swift does not import.
        let exitStatus = status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        let out = (try? Data(contentsOf: URL(fileURLWithPath: outPath))) ?? Data()
        let err = (try? Data(contentsOf: URL(fileURLWithPath: errPath))) ?? Data()
        return Run(status: exitStatus, stdout: String(decoding: out, as: UTF8.self), stderr: String(decoding: err, as: UTF8.self))
    }
}
