import Foundation
import Logging
import Synchronization

/// A prompt shown as a desktop notification with Allow and Deny actions (Desktop Notifications
/// Specification 1.2: org.freedesktop.Notifications.Notify with `actions`, answered by the
/// ActionInvoked and NotificationClosed signals), where the user's session has a bus.
///
/// The daemon runs Debian's `notify-send --action … --wait` (libnotify-bin) as a child process for
/// each prompt instead of speaking D-Bus itself: the process that holds the keystore's keys then
/// parses nothing that comes from the bus (any program of the session may send on it), no D-Bus
/// library is linked into it, and a desktop without notify-send simply has the terminal's
/// `passkeyctl approve`. The child prints the invoked action's key and exits; SIGINT makes it
/// close the notification (CloseNotification) and exit, which is how a prompt answered in the
/// terminal, timed out or cancelled leaves the screen.
public struct DesktopNotification: PromptNotifier {
    /// Why notify-send did not start: the errno.
    public enum DesktopNotificationError: Error {
        case spawn(Int32)
    }

    /// The notify-send program.
    public let executable: String
    /// The child's whole environment: the bus address and what a notification needs, nothing more.
    public let environment: [String: String]
    /// How long the notification stays (the prompt's own timeout).
    public let timeout: Duration
    let logger: Logger

    /// A notifier for the session `environment` describes: nil when there is no session bus
    /// (DBUS_SESSION_BUS_ADDRESS, else a systemd user session's $XDG_RUNTIME_DIR/bus) or no notify-send.
    public static func forSession(
        environment: [String: String], timeout: Duration, logger: Logger = Logger(label: "passkeyd.prompt")
    ) -> DesktopNotification? {
        var address = environment["DBUS_SESSION_BUS_ADDRESS"].flatMap { $0.isEmpty ? nil : $0 }
        if address == nil, let runtime = environment["XDG_RUNTIME_DIR"], isSocket("\(runtime)/bus") {
            address = "unix:path=\(runtime)/bus"
        }
        guard let address, let executable = find("notify-send", path: environment["PATH"]) else { return nil }
        var child = ["DBUS_SESSION_BUS_ADDRESS": address, "PATH": "/usr/bin:/bin"]
        for name in ["HOME", "XDG_RUNTIME_DIR", "LANG", "LC_ALL", "LC_MESSAGES", "DISPLAY", "WAYLAND_DISPLAY"] {
            if let value = environment[name] { child[name] = value }
        }
        return DesktopNotification(executable: executable, environment: child, timeout: timeout, logger: logger)
    }

    /// The command line for `prompt`: critical urgency (a server keeps it until answered), the
    /// prompt's timeout, and the two actions whose keys come back on stdout.
    public func arguments(for prompt: PromptBroker.Prompt) -> [String] {
        let wording = PromptWording(prompt)
        let milliseconds = timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000
        return [
            "--app-name=passkeyd", "--icon=dialog-password", "--urgency=critical", "--category=device",
            "--expire-time=\(milliseconds)", "--action=\(Self.allow)=Allow", "--action=\(Self.deny)=Deny", "--wait",
            "--", wording.summary, wording.markupBody
        ]
    }

    static let allow = "allow"
    static let deny = "deny"

    public func show(_ prompt: PromptBroker.Prompt) async -> Bool? {
        let child = Child()
        return await withTaskCancellationHandler {
            let spawned: (pid: pid_t, output: Int32)
            do { spawned = try spawn(arguments(for: prompt)) } catch {
                logger.warning("cannot show the desktop prompt", metadata: ["error": "\(error)"])
                return nil
            }
            let cancelledEarly = child.state.withLock { state -> Bool in
                state.pid = spawned.pid
                return state.cancelled
            }
            if cancelledEarly { kill(spawned.pid, SIGINT) }
            logger.debug("desktop prompt shown", metadata: ["prompt": "\(prompt.id)"])
            // notify-send writes the action's key once it is invoked, and ends at once, or once the
            // notification closed; its stdout is read to the end on a thread of its own, as it
            // blocks (never on the cooperative pool, which has a thread per core).
            let printed = await withCheckedContinuation { (continuation: CheckedContinuation<[UInt8], Never>) in
                Thread.detachNewThread {
                    var data: [UInt8] = []
                    var buffer = [UInt8](repeating: 0, count: 512)
                    while true {
                        let count = read(spawned.output, &buffer, buffer.count)
                        if count > 0 {
                            data += buffer[0..<count]
                        } else if count < 0, errno == EINTR {
                            continue
                        } else {
                            break
                        }
                    }
                    close(spawned.output)
                    var status: Int32 = 0
                    while waitpid(spawned.pid, &status, 0) < 0, errno == EINTR {}
                    // Reaped: its pid may be reused, so a late cancellation must not signal it.
                    child.state.withLock { $0.pid = nil }
                    continuation.resume(returning: data)
                }
            }
            let lines = String(decoding: printed, as: UTF8.self).split(whereSeparator: \.isNewline)
            if lines.contains(where: { $0 == Self.allow }) { return true }
            if lines.contains(where: { $0 == Self.deny }) { return false }
            return nil
        } onCancel: {
            let pid = child.state.withLock { state -> Int32? in
                state.cancelled = true
                return state.pid
            }
            if let pid { kill(pid, SIGINT) }
        }
    }

    /// Starts notify-send with its stdout on a pipe, stdin and stderr on /dev/null. With every
    /// signal unblocked and at its default action: the daemon's threads block most signals and
    /// posix_spawn would hand that mask on, and a child that blocks SIGINT never takes its
    /// notification down.
    private func spawn(_ arguments: [String]) throws(DesktopNotificationError) -> (pid: pid_t, output: Int32) {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw .spawn(errno) }
        // Close-on-exec at once: another child spawned meanwhile must not inherit these ends.
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, ends[1], 1)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        close(ends[1])
        guard result == 0 else {
            close(ends[0])
            throw .spawn(result)
        }
        return (pid, ends[0])
    }

    /// The running child's pid and whether the prompt ended before it started: the cancellation
    /// handler and the reading thread share it.
    private final class Child: Sendable {
        let state = Mutex<(pid: Int32?, cancelled: Bool)>((nil, false))
    }

    private static func isSocket(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFSOCK
    }

    /// The first executable `name` on `path` (the daemon's PATH), else in /usr/bin.
    static func find(_ name: String, path: String?) -> String? {
        let folders = (path ?? "").split(separator: ":").map(String.init) + ["/usr/bin"]
        return folders.map { "\($0)/\(name)" }.first { access($0, X_OK) == 0 }
    }
}
