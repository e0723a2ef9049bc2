import Foundation
import Keystore
import PasskeyClient

/// A real `passkeyd` on a temporary socket: presence approved automatically, built-in
/// UV off, so every request is answered without a person.
final class BenchDaemon: Sendable {
    let socket: String
    let log: String
    /// From the launch to the first getInfo answered on the socket (keystore open, socket bound).
    let readyAfter: Duration
    private let process: Process

    private init(socket: String, log: String, process: Process, readyAfter: Duration) {
        self.socket = socket
        self.log = log
        self.process = process
        self.readyAfter = readyAfter
    }

    /// Starts the daemon on `dataDirectory` and returns once it answers getInfo on its socket.
    /// `environment` adds to passkeybench's own, whose `PASSKEYD_SPEED_OFF` never passes: a
    /// figure runs every speed mechanism unless it names the ones it turns off.
    static func start(
        executable: String, dataDirectory: String, workDirectory: String, name: String,
        arguments extra: [String] = [], environment: [String: String] = [:]
    ) async throws -> BenchDaemon {
        guard FileManager.default.isExecutableFile(atPath: executable) else {
            throw BenchError.daemonNotFound(path: executable)
        }
        let socket = workDirectory + "/\(name).sock"
        let log = workDirectory + "/\(name).log"
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments =
            [
                "--socket", socket, "--data-dir", dataDirectory,
                "--presence", "auto", "--uv", "off", "--log-level", "warning"
            ] + extra
        var inherited = ProcessInfo.processInfo.environment
        inherited[SpeedMechanisms.environmentVariable] = nil
        process.environment = inherited.merging(environment) { $1 }
        let logHandle = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        process.standardOutput = logHandle
        process.standardError = logHandle
        let clock = ContinuousClock()
        let launched = clock.now
        try process.run()
        try await waitUntilReady(process, socket: socket, log: log)
        return BenchDaemon(socket: socket, log: log, process: process, readyAfter: clock.now - launched)
    }

    /// Polls with getInfo every 5 ms: readiness means the keystore is open and the socket accepts.
    private static func waitUntilReady(_ process: Process, socket: String, log: String) async throws {
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(60)
        while clock.now < deadline {
            guard process.isRunning else { throw BenchError.daemonExited(status: process.terminationStatus, log: log) }
            if FileManager.default.fileExists(atPath: socket) {
                let transport = UnixSocketTransport(path: socket, silenceTimeout: .seconds(2))
                let ready = (try? await CTAP2Session(transport: transport).getInfo()) != nil
                await transport.close()
                if ready { return }
            }
            try await Task.sleep(for: .milliseconds(5))
        }
        process.terminate()
        process.waitUntilExit()
        throw BenchError.daemonDidNotStart(socket: socket, log: log)
    }

    /// The daemon's resident set (VmRSS in /proc), in KiB; nil if it cannot be read.
    func residentKiB() -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") })
        else { return nil }
        return line.split(separator: " ").dropFirst().first.flatMap { Int($0) }
    }

    /// SIGTERM, then waits: the daemon closes (checkpoints) its keystore on the way out.
    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
    }
}
