import Foundation

/// One finished process: exit status and what it wrote.
public struct ProcessRun: Sendable {
    public let status: Int32
    public let stdout: String
    public let stderr: String

    /// The standard output parsed as a JSON object.
    public var json: [String: Any] {
        get throws {
            guard let object = try JSONSerialization.jsonObject(with: Data(stdout.utf8)) as? [String: Any] else {
                throw FixtureError("not a JSON object: \(stdout)")
            }
            return object
        }
    }

    public init(status: Int32, stdout: String, stderr: String) {
        self.status = status
        self.stdout = stdout
        self.stderr = stderr
    }

    /// Runs `executable` to completion with only `environment` (plus PATH and HOME), so a
    /// developer's own PASSKEYD_* variables never leak into a test.
    public static func run(_ executable: URL, _ arguments: [String], environment: [String: String] = [:]) async throws
        -> ProcessRun
    {
        try await Blocking.run { try runBlocking(executable, arguments, environment: environment) }
    }

    /// `run`, holding the calling thread until the process exits: only for the one-off
    /// bin-path look-up, which every test waits for anyway.
    static func runBlocking(_ executable: URL, _ arguments: [String], environment: [String: String] = [:]) throws
        -> ProcessRun
    {
        let output = try TemporaryFolder("pkd-run")
        defer { output.remove() }
        let (out, err) = (output.appending("stdout"), output.appending("stderr"))
        let pid = try ChildProcess.spawn(
            executable.path, arguments, environment: withSearchPath(environment), stdout: out, stderr: err)
        let status = ChildProcess.wait(pid)
        return ProcessRun(status: status, stdout: read(out), stderr: read(err))
    }

    /// `environment` plus the caller's PATH and HOME, unless it sets them itself.
    static func withSearchPath(_ environment: [String: String]) -> [String: String] {
        var complete = environment
        for key in ["PATH", "HOME"] where complete[key] == nil {
            complete[key] = ProcessInfo.processInfo.environment[key]
        }
        return complete
    }

    static func read(_ path: String) -> String {
        String(decoding: FileManager.default.contents(atPath: path) ?? Data(), as: UTF8.self)
    }
}
