import CTAP
import Foundation
import PasskeyClient

/// The real `passkeyd` executable on a temporary socket and data folder.
///
/// Started in the foreground (a child of the test, stopped with a signal, its exit status
/// known) or with `--detach` (the launcher returns once the socket accepts; the daemon's pid
/// comes from the pid file). Ready means the daemon said so, never a sleep: the launcher's
/// exit for `--detach`, and in the foreground the same readiness line `--detach` waits for.
public final class PasskeydProcess: Sendable {
    public enum Mode: Sendable {
        case foreground
        case detached
    }

    /// How the daemon learns where its socket and data folder are.
    public enum Placement: Sendable {
        /// `--socket` and `--data-dir` in the folder.
        case flags
        /// PASSKEYD_SOCKET and PASSKEYD_DATA_DIR in the folder.
        case environment
        /// Neither: the test's environment decides (XDG_RUNTIME_DIR…), and these are the
        /// paths the daemon is expected to pick.
        case implied(socket: String, dataDirectory: String)
    }

    /// Holds the socket, the data folder, the pid and log files; removed by `stop()`.
    public let folder: TemporaryFolder
    public let socket: String
    public let dataDirectory: String
    public let pid: pid_t
    public let mode: Mode
    /// Where the foreground daemon's standard error goes (the log, with --detach's --log-file).
    public let logFile: String
    /// With `--detach`: the launcher that started the daemon and returned.
    public let launcher: ProcessRun?

    /// The pid file every fixture daemon writes.
    public var pidFile: String { folder.appending("passkeyd.pid") }

    private init(
        folder: TemporaryFolder, socket: String, dataDirectory: String, pid: pid_t, mode: Mode, logFile: String,
        launcher: ProcessRun? = nil
    ) {
        self.folder = folder
        self.socket = socket
        self.dataDirectory = dataDirectory
        self.pid = pid
        self.mode = mode
        self.logFile = logFile
        self.launcher = launcher
    }

    /// Starts passkeyd with `arguments` and only `environment` (plus PATH and HOME), and
    /// returns once its socket accepts connections. A daemon that exits instead throws
    /// `Refusal` with its status and what it said; the folder is removed then.
    public static func start(
        _ arguments: [String] = [], environment: [String: String] = [:], mode: Mode = .foreground,
        placement: Placement = .flags, in folder: TemporaryFolder? = nil
    ) async throws -> PasskeydProcess {
        let folder = try folder ?? TemporaryFolder("pkd-daemon")
        do {
            return try await launch(
                arguments, environment: environment, mode: mode, placement: placement, folder: folder)
        } catch {
            folder.remove()
            throw error
        }
    }

    /// A daemon that exited instead of becoming ready.
    public struct Refusal: Error, CustomStringConvertible {
        public let run: ProcessRun
        public var description: String { "passkeyd exited with \(run.status): \(run.stderr)\(run.stdout)" }
    }

    /// Runs passkeyd expecting it to refuse to start: its exit status and sentence. One that
    /// starts after all is stopped again and reported as a fixture failure.
    public static func refusal(
        _ arguments: [String] = [], environment: [String: String] = [:], mode: Mode = .foreground,
        placement: Placement = .flags, in folder: TemporaryFolder
    ) async throws -> ProcessRun {
        do {
            let daemon = try await launch(
                arguments, environment: environment, mode: mode, placement: placement, folder: folder)
            await daemon.terminate()
            throw FixtureError("passkeyd started (pid \(daemon.pid)) although it should have refused")
        } catch let refusal as Refusal {
            return refusal.run
        }
    }

    private static func launch(
        _ arguments: [String], environment: [String: String], mode: Mode, placement: Placement, folder: TemporaryFolder
    ) async throws -> PasskeydProcess {
        var arguments = arguments
        var environment = environment
        let socket: String
        let dataDirectory: String
        switch placement {
        case .flags:
            (socket, dataDirectory) = (folder.appending("ctaphid.sock"), folder.appending("data"))
            arguments = ["--socket", socket, "--data-dir", dataDirectory] + arguments
        case .environment:
            (socket, dataDirectory) = (folder.appending("ctaphid.sock"), folder.appending("data"))
            environment["PASSKEYD_SOCKET"] = socket
            environment["PASSKEYD_DATA_DIR"] = dataDirectory
        case .implied(let impliedSocket, let impliedData):
            (socket, dataDirectory) = (impliedSocket, impliedData)
        }
        let pidFile = folder.appending("passkeyd.pid")
        let logFile = folder.appending("passkeyd.log")
        arguments += ["--pid-file", pidFile]
        let executable = try BuiltProducts.executable("passkeyd")
        switch mode {
        case .detached:
            let launcher = try await ProcessRun.run(
                executable, arguments + ["--detach", "--log-file", logFile], environment: environment)
            guard launcher.status == 0 else { throw Refusal(run: launcher) }
            guard let text = try? String(contentsOfFile: pidFile, encoding: .utf8),
                let pid = pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines))
            else { throw FixtureError("passkeyd --detach succeeded but wrote no pid file: \(launcher.stdout)") }
            return PasskeydProcess(
                folder: folder, socket: socket, dataDirectory: dataDirectory, pid: pid, mode: mode, logFile: logFile,
                launcher: launcher)
        case .foreground:
            let (arguments, environment) = (arguments, environment)
            let pid = try await Blocking.run {
                try spawnUntilReady(executable, arguments, environment: environment, folder: folder, logFile: logFile)
            }
            return PasskeydProcess(
                folder: folder, socket: socket, dataDirectory: dataDirectory, pid: pid, mode: mode, logFile: logFile)
        }
    }

    /// Starts passkeyd as our child and waits for its readiness line: the one `--detach`'s
    /// launcher reads (PASSKEYD_READY_FD), written once the socket accepts or with the reason
    /// it cannot start. End-of-file without it means the daemon exited.
    private static func spawnUntilReady(
        _ executable: URL, _ arguments: [String], environment: [String: String], folder: TemporaryFolder,
        logFile: String
    ) throws -> pid_t {
        let readiness: Int32 = 3
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw FixtureError("pipe: \(String(cString: strerror(errno)))") }
        // Close-on-exec, so only the child's dup2'd copy stays open and end-of-file comes when
        // it exits; the write end moved above 3, since dup2 onto itself would keep the flag.
        _ = fcntl(ends[0], F_SETFD, FD_CLOEXEC)
        let writeEnd = fcntl(ends[1], F_DUPFD_CLOEXEC, 10)
        close(ends[1])
        ends[1] = writeEnd
        var environment = ProcessRun.withSearchPath(environment)
        environment["PASSKEYD_READY_FD"] = String(readiness)
        let stdout = folder.appending("passkeyd.out")
        let pid: pid_t
        do {
            pid = try ChildProcess.spawn(
                executable.path, arguments, environment: environment, stdout: stdout, stderr: logFile,
                inherit: (ends[1], readiness))
        } catch {
            close(ends[0])
            close(ends[1])
            throw error
        }
        close(ends[1])
        let line = readLine(ends[0])
        close(ends[0])
        guard let line, line.hasPrefix("ready") else {
            // An error line or end-of-file: the daemon is exiting on its own. Silence: it hangs.
            if line == nil { kill(pid, SIGKILL) }
            let status = ChildProcess.wait(pid)
            throw Refusal(
                run: ProcessRun(status: status, stdout: ProcessRun.read(stdout), stderr: ProcessRun.read(logFile)))
        }
        return pid
    }

    /// Up to the first newline or end-of-file; nil after two minutes of silence (a daemon
    /// that neither starts nor fails must not hang the suite).
    private static func readLine(_ descriptor: Int32) -> String? {
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while bytes.last != UInt8(ascii: "\n") {
            var waiting = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&waiting, 1, 120_000)
            if ready < 0, errno == EINTR { continue }
            guard ready > 0 else { return nil }
            let count = read(descriptor, &byte, 1)
            if count == 1 { bytes.append(byte) } else if count < 0, errno == EINTR { continue } else { break }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Sends `signal` and waits for the daemon to exit: up to 30 s, then SIGKILL. The exit
    /// status for a foreground daemon, nil for a detached one (not our child).
    @discardableResult
    public func terminate(_ signal: Int32 = SIGTERM) async -> Int32? {
        let (mode, pid) = (mode, pid)
        return try? await Blocking.run { Self.terminate(pid, mode: mode, signal: signal) }
    }

    private static func terminate(_ pid: pid_t, mode: Mode, signal: Int32) -> Int32? {
        switch mode {
        case .foreground:
            if let status = ChildProcess.exited(pid) { return status }
            kill(pid, signal)
            for _ in 0..<1500 {
                if let status = ChildProcess.exited(pid) { return status }
                usleep(20_000)
            }
            kill(pid, SIGKILL)
            return ChildProcess.wait(pid)
        case .detached:
            guard ChildProcess.isRunning(pid) else { return nil }
            kill(pid, signal)
            for _ in 0..<1500 where ChildProcess.isRunning(pid) { usleep(20_000) }
            if ChildProcess.isRunning(pid) { kill(pid, SIGKILL) }
            return nil
        }
    }

    /// Whether the daemon process still runs (a zombie does not).
    public var isRunning: Bool {
        mode == .foreground ? ChildProcess.exited(pid) == nil : ChildProcess.isRunning(pid)
    }

    /// Stops the daemon if it still runs and removes its folder.
    public func stop() async {
        await terminate()
        folder.remove()
    }

    /// What the daemon has logged so far (foreground: its standard error; detached: --log-file).
    public var log: String { ProcessRun.read(logFile) }

    /// A CTAP2 session of our own on the daemon's socket, closed after `body`.
    public func withSession<T>(_ body: (CTAP2Session) async throws -> T) async throws -> T {
        let transport = UnixSocketTransport(path: socket)
        do {
            let result = try await body(CTAP2Session(transport: transport))
            await transport.close()
            return result
        } catch {
            await transport.close()
            throw error
        }
    }

    /// Starts a daemon for `body` and stops it afterwards (removing its folder), whatever happens.
    public static func with(
        _ arguments: [String] = [], environment: [String: String] = [:], mode: Mode = .foreground,
        placement: Placement = .flags, in folder: TemporaryFolder? = nil, _ body: (PasskeydProcess) async throws -> Void
    ) async throws {
        let daemon = try await start(arguments, environment: environment, mode: mode, placement: placement, in: folder)
        do {
            try await body(daemon)
        } catch {
            await daemon.stop()
            throw error
        }
        await daemon.stop()
    }
}
