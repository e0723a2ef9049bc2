import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// `--detach`. Swift cannot fork once threads run, so the daemon re-executes
/// itself in a new session (posix_spawn + POSIX_SPAWN_SETSID) with output to
/// /dev/null or the log file, and waits on a pipe for the child to report that
/// its socket accepts connections, or why it could not start.
enum Detach {
    /// Set in the child's environment: the descriptor it reports readiness on.
    static let readinessVariable = "PASSKEYD_READY_FD"
    static let readinessDescriptor: Int32 = 3
    /// Set in the child's environment when the parent had `PASSKEYD_PASSPHRASE`: the
    /// descriptor of a pipe carrying the passphrase itself, which is not copied into the
    /// child's environment or arguments.
    static let passphraseVariable = "PASSKEYD_PASSPHRASE_FD"
    static let passphraseDescriptor: Int32 = 4
    /// glibc's POSIX_SPAWN_SETSID (spawn.h, glibc ≥ 2.26), not imported into Swift.
    private static let spawnSetSID: Int16 = 0x80

    enum Failure: Error, CustomStringConvertible {
        case spawn(Int32)
        case child(String)
        case childExited(Int32)

        var description: String {
            switch self {
            case .spawn(let code): return "cannot start the background daemon: \(String(cString: strerror(code)))"
            case .child(let reason): return reason
            case .childExited(let status): return "the background daemon exited during start-up (status \(status))"
            }
        }
    }

    /// A pipe whose ends are both close-on-exec, so a child keeps only the copy dup2'd
    /// onto a fixed descriptor, and each side sees end-of-file when the other goes.
    private static func closeOnExecPipe() throws(Failure) -> (read: Int32, write: Int32) {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw .spawn(errno) }
        _ = fcntl(ends[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(ends[1], F_SETFD, FD_CLOEXEC)
        return (ends[0], ends[1])
    }

    /// In the parent: starts the detached child, hands it `passphrase` (taken from the
    /// parent's environment) through a pipe, and waits for its report. Returns its pid.
    static func spawnChild(logFile: String?, passphrase: String?) throws(Failure) -> pid_t {
        let (readEnd, writeEnd) = try closeOnExecPipe()
        let secret = try passphrase.map { _ throws(Failure) in try closeOnExecPipe() }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        let output = logFile ?? "/dev/null"
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_APPEND, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        posix_spawn_file_actions_adddup2(&actions, writeEnd, readinessDescriptor)
        if let secret { posix_spawn_file_actions_adddup2(&actions, secret.read, passphraseDescriptor) }

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setflags(&attributes, spawnSetSID)

        // The resolved path rather than /proc/self/exe, so the child's process name stays `passkeyd`.
        let executable =
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? "/proc/self/exe"
        let arguments = [CommandLine.arguments.first ?? "passkeyd"] + CommandLine.arguments.dropFirst()
        var environment = ProcessInfo.processInfo.environment
        environment[readinessVariable] = String(readinessDescriptor)
        environment[EnvironmentPassphrase.variable] = nil
        if secret != nil { environment[passphraseVariable] = String(passphraseDescriptor) }
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var child: pid_t = 0
        let result = posix_spawn(&child, executable, &actions, &attributes, argv, envp)
        close(writeEnd)
        if let secret {
            close(secret.read)
            // Written whole before waiting on the report: the child reads it first thing.
            // A child that died early makes this EPIPE rather than a fatal SIGPIPE; its report says why.
            signal(SIGPIPE, SIG_IGN)
            if result == 0, let passphrase { writeAll(Array(passphrase.utf8), to: secret.write) }
            close(secret.write)
        }
        guard result == 0 else {
            close(readEnd)
            throw .spawn(result)
        }

        let report = readLine(readEnd)
        close(readEnd)
        if report.hasPrefix("ready") { return child }
        var status: Int32 = 0
        waitpid(child, &status, 0)
        if report.hasPrefix("error: ") { throw .child(String(report.dropFirst(7)).trimmingCharacters(in: .newlines)) }
        throw .childExited(status)
    }

    /// In the child: the readiness descriptor, if this process was started by `spawnChild`.
    static var childDescriptor: Int32? {
        ProcessInfo.processInfo.environment[readinessVariable].flatMap(Int32.init)
    }

    /// In the child: the passphrase the parent sent, if it sent one; the pipe is then closed.
    static func inheritedPassphrase() -> String? {
        guard let descriptor = ProcessInfo.processInfo.environment[passphraseVariable].flatMap(Int32.init) else {
            return nil
        }
        unsetenv(passphraseVariable)
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 512)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count > 0 { bytes += buffer[..<count] } else if count < 0, errno == EINTR { continue } else { break }
        }
        close(descriptor)
        defer {
            for i in bytes.indices { bytes[i] = 0 }
            for i in buffer.indices { buffer[i] = 0 }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func writeAll(_ bytes: [UInt8], to descriptor: Int32) {
        var offset = 0
        while offset < bytes.count {
            let count = bytes[offset...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if count > 0 { offset += count } else if count < 0, errno == EINTR { continue } else { return }
        }
    }

    /// In the child: tells the waiting parent how start-up went, then lets go of it.
    static func report(_ line: String, on descriptor: Int32) {
        let bytes = Array((line + "\n").utf8)
        _ = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        close(descriptor)
    }

    /// Reads up to the first newline or end-of-file.
    private static func readLine(_ descriptor: Int32) -> String {
        var data: [UInt8] = []
        var byte: UInt8 = 0
        while data.last != UInt8(ascii: "\n") {
            let count = read(descriptor, &byte, 1)
            if count == 1 { data.append(byte) } else if count < 0, errno == EINTR { continue } else { break }
        }
        return String(decoding: data, as: UTF8.self)
    }
}
