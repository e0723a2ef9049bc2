import Foundation
import PasskeyClient

/// A real `passkeyd` on a temporary socket: presence approved automatically, built-in
/// UV off, so every request is answered without a person.
final class BenchDaemon: Sendable {
    let socket: String
    let log: String
    private let process: Process

    private init(socket: String, log: String, process: Process) {
        self.socket = socket
        self.log = log
        self.process = process
    }

    /// Starts the daemon on `dataDirectory` and returns once it answers getInfo on its socket.
    static func start(executable: String, dataDirectory: String, workDirectory: String, name: String) async throws -> BenchDaemon {
        guard FileManager.default.isExecutableFile(atPath: executable) else { throw BenchError.daemonNotFound(path: executable) }
        let socket = workDirectory + "/\(name).sock"
        let log = workDirectory + "/\(name).log"
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = [
            "--socket", socket, "--data-dir", dataDirectory,
            "--presence", "auto", "--uv", "off", "--log-level", "warning",
        ]
        let logHandle = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        process.standardOutput = logHandle
        process.standardError = logHandle
        try process.run()
        let daemon = BenchDaemon(socket: socket, log: log, process: process)
        try await daemon.waitUntilReady()
        return daemon
    }

    /// Polls with getInfo: readiness means the keystore is open and the socket accepts.
    private func waitUntilReady() async throws {
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(30)
        while clock.now < deadline {
            guard process.isRunning else { throw BenchError.daemonExited(status: process.terminationStatus, log: log) }
            if FileManager.default.fileExists(atPath: socket) {
                let transport = UnixSocketTransport(path: socket, silenceTimeout: .seconds(2))
                let ready = (try? await CTAP2Session(transport: transport).getInfo()) != nil
                await transport.close()
                if ready { return }
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        stop()
        throw BenchError.daemonDidNotStart(socket: socket, log: log)
    }

    /// SIGTERM, then waits: the daemon closes (checkpoints) its keystore on the way out.
    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
    }
}
