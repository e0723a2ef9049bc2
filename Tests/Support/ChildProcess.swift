import Foundation

/// posix_spawn and waitpid for the fixtures. Not Foundation's Process: it misses child exits
/// when several tests wait at once on the cooperative pool.
enum ChildProcess {
    /// Starts `executable` with exactly `environment`, standard input from /dev/null (never a
    /// terminal, so nothing prompts) and output to files (so a chatty child never stalls on a
    /// full pipe). `inherit` maps a descriptor of ours onto a descriptor number in the child.
    static func spawn(
        _ executable: String, _ arguments: [String], environment: [String: String],
        stdout: String, stderr: String, inherit: (ours: Int32, theirs: Int32)? = nil
    ) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, stdout, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, stderr, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        if let inherit { posix_spawn_file_actions_adddup2(&actions, inherit.ours, inherit.theirs) }
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable, &actions, nil, argv, envp)
        guard spawned == 0 else {
            throw FixtureError("cannot start \(executable): \(String(cString: strerror(spawned)))")
        }
        return pid
    }

    /// Blocks until `pid` (a child of ours) exits; its exit status, or 128 + the signal.
    static func wait(_ pid: pid_t) -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        return exitStatus(status)
    }

    /// The exit status if `pid` (a child of ours) has exited, else nil; never blocks.
    static func exited(_ pid: pid_t) -> Int32? {
        var status: Int32 = 0
        let result = waitpid(pid, &status, WNOHANG)
        if result == pid { return exitStatus(status) }
        // ECHILD: already reaped, so long gone.
        return result == -1 && errno == ECHILD ? -1 : nil
    }

    /// WIFEXITED / WEXITSTATUS / WTERMSIG, which Swift does not import.
    private static func exitStatus(_ status: Int32) -> Int32 {
        status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
    }

    /// Whether `pid` (not necessarily our child) still runs: a zombie waiting for a parent
    /// that never reaps it (PID 1 in some containers) counts as gone.
    static func isRunning(_ pid: pid_t) -> Bool {
        guard kill(pid, 0) == 0 else { return false }
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return true }
        // The state letter follows "pid (comm) ".
        return stat[stat.index(after: close)...].dropFirst().first != "Z"
    }
}
