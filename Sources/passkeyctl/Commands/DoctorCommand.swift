import ArgumentParser
import CTAP
import CTAPHID
import Foundation
import PasskeydLocal

/// `passkeyctl doctor`: checks the setup a client depends on and says what to do about each
/// problem: the socket path and why it is that one, its folder and file (owner, mode), the
/// daemon, its version and profile, the PIN, the keystore folder, the browser host.
struct DoctorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract: "Check the socket, the daemon, the PIN and the keystore, and say how to fix what is wrong.",
        discussion:
            "Exits 0 when nothing is wrong; otherwise with the status of the first problem (2: no usable daemon, 4: PIN blocked)."
    )

    @OptionGroup var global: GlobalOptions
    @Option(
        name: .customLong("browser-profile"),
        help:
            "Also check the Chromium host manifest `browser install --profile DIR` wrote in this --user-data-dir (repeatable)."
    )
    var browserProfiles: [String] = []

    private var environment: [String: String] { ProcessInfo.processInfo.environment }

    func run() async throws {
        var findings = [socketPath()]
        let folder = socketFolder()
        findings.append(folder)
        let file = socketFile()
        findings.append(file)
        // A folder or file the clients refuse is the problem to fix first; connecting would only repeat it.
        if !folder.isProblem, !file.isProblem { findings += await daemon() }
        findings += keystore()
        findings += BrowserHostCheck.findings(environment: environment)
        findings += BrowserHostModeCheck.findings(profiles: browserProfiles, environment: environment)
        report(findings)
        for finding in findings {
            if case .problem(let status) = finding.verdict { throw ExitCode(status.rawValue) }
        }
    }

    private func report(_ findings: [Diagnosis]) {
        if global.json {
            Output.json(
                .object([
                    ("healthy", .bool(!findings.contains(where: \.isProblem))), ("checks", .array(findings.map(\.json)))
                ]))
            return
        }
        for finding in findings {
            print("[\(finding.mark)] \(finding.subject): \(finding.finding)")
            if let advice = finding.advice { print("       → \(advice)") }
        }
    }

    private var socket: String { global.socketPath }

    private func socketPath() -> Diagnosis {
        let why: String
        if global.socket != nil {
            why = "given with --socket"
        } else {
            switch PasskeydSocket.choose(environment: environment).reason {
            case .environment: why = "from PASSKEYD_SOCKET"
            case .runtimeDirectory: why = "under XDG_RUNTIME_DIR, the login session's private folder"
            case .temporaryFallback:
                return .note(
                    "socket",
                    "\(socket) (the /tmp fallback: XDG_RUNTIME_DIR is not set, so there is no login session's runtime folder)",
                    advice:
                        "fine on its own; a daemon started from a login session (or by systemd --user) uses $XDG_RUNTIME_DIR/passkeyd/ctaphid.sock instead, so start both the daemon and the clients from the same kind of session, or set PASSKEYD_SOCKET for both"
                )
            }
        }
        return .ok("socket", "\(socket) (\(why))")
    }

    private func socketFolder() -> Diagnosis {
        let folder = SocketFolder.folder(of: socket)
        var info = stat()
        let found = lstat(folder, &info) == 0 ? "\(folder) (\(Diagnosis.describe(info)))" : folder
        switch SocketFolder.verdict(forFolderOf: socket) {
        case .trusted:
            return .ok("socket folder", found)
        case .missing:
            return .note(
                "socket folder", "\(folder) does not exist yet", advice: "passkeyd creates it (mode 700) when it starts"
            )
        case .notADirectory:
            return .problem(
                "socket folder", "\(found) is not a real directory (a symlink?); clients refuse it",
                advice: "remove it (rm \(folder)) and start passkeyd, which creates a private folder")
        case .ownedByAnother(let owner):
            return .problem(
                "socket folder",
                "\(found) belongs to uid \(owner), not to you (uid \(getuid())); clients refuse it, since another user could listen there",
                advice:
                    "have it removed (it is not yours), or choose another path with PASSKEYD_SOCKET for both passkeyd and its clients"
            )
        case .writableByOthers:
            return .problem(
                "socket folder", "\(found) can be written by other users; clients refuse it",
                advice: "chmod 700 \(folder)")
        }
    }

    private func socketFile() -> Diagnosis {
        var info = stat()
        guard lstat(socket, &info) == 0 else {
            return .problem(
                "socket file", "nothing at \(socket): no daemon is listening",
                advice: "start it: `passkeyd --detach`, or with systemd `systemctl --user enable --now passkeyd.socket`"
            )
        }
        guard info.st_mode & S_IFMT == S_IFSOCK else {
            return .problem(
                "socket file", "\(socket) is not a socket; passkeyd will not replace it",
                advice: "move it away (mv \(socket) \(socket).old) and start passkeyd")
        }
        guard info.st_uid == getuid() else {
            return .problem(
                "socket file", "\(socket) (\(Diagnosis.describe(info))) is not yours",
                advice: "stop whoever created it, or choose another path with PASSKEYD_SOCKET")
        }
        guard info.st_mode & 0o077 == 0 else {
            return .note(
                "socket file",
                "\(socket) (\(Diagnosis.describe(info))) is open to other users; passkeyd still refuses their connections",
                advice: "restart passkeyd, which makes it 600, or chmod 600 \(socket)")
        }
        return .ok("socket file", "\(socket) (\(Diagnosis.describe(info)))")
    }

    /// STATUS, the version, then getInfo and the PIN state.
    private func daemon() async -> [Diagnosis] {
        let connection = global.connect()
        let reply: [UInt8]
        do { reply = try await connection.vendor(.status) } catch {
            let advice: String
            switch error {
            case .noDaemon:
                advice =
                    "a socket file without a daemon is left from one that died; start passkeyd (`passkeyd --detach` or `systemctl --user restart passkeyd.socket`), which replaces it"
            default:
                advice =
                    "check the daemon's log (`journalctl --user -u passkeyd` under systemd, or its --log-file) and restart it"
            }
            return [.problem("daemon", error.message, advice: advice, status: error.exitStatus)]
        }
        guard let status = try? DaemonStatus(bytes: reply) else {
            return [
                .problem(
                    "daemon", "the daemon at \(socket) answered STATUS with something unreadable",
                    advice: "is it passkeyd? `passkeyctl status` and `ps` tell; restart passkeyd", status: .deviceError)
            ]
        }
        let up = StatusCommand.duration(Int(Date().timeIntervalSince(status.startedAt)))
        var findings: [Diagnosis] = [.ok("daemon", "passkeyd \(status.version) answers (pid \(status.pid), up \(up))")]
        if status.version != PasskeydVersion.text {
            findings.append(
                .problem(
                    "version", "the daemon is \(status.version), this passkeyctl \(PasskeydVersion.text)",
                    advice:
                        "restart the daemon so it runs the installed version (`systemctl --user restart passkeyd`, or stop it and `passkeyd --detach`)",
                    status: .deviceError))
        }
        // docs/profiles.md: the kind of key the daemon presents; a U2F-only key has no PIN to check.
        let profile = status.profile ?? "fido2.1"
        findings.append(.ok("profile", profile + (status.profile == nil ? " (an older daemon that does not say)" : "")))
        // Whether anybody is ever asked: an auto-approving daemon is the test setup, not a person's key.
        findings.append(DaemonModes(statusReply: reply).diagnosis)
        if profile == DaemonStatus.u2fOnlyProfile {
            findings.append(
                .note(
                    "PIN", "none: a U2F-only key (CTAP1) has no PIN",
                    advice: "start passkeyd with --profile fido2.1 for PINs and passkeys"))
            return findings
        }
        findings.append(await pin(connection))
        return findings
    }

    private func pin(_ connection: Connection) async -> Diagnosis {
        let state: PINState
        let builtInUV: Bool
        do {
            let info = try await connection.info()
            // CTAP 2.1 §6.4: options.uv true is built-in user verification, configured and usable.
            builtInUV = info.options["uv"] == true
            state = try await PINState.read(connection, info: info)
        } catch {
            return .problem(
                "PIN", "cannot read the PIN state: \(error.message)", advice: "try `passkeyctl info`",
                status: error.exitStatus)
        }
        guard state.isSet else {
            if builtInUV {
                return .ok("PIN", "not set; built-in user verification answers sites that ask for it (passkeyd --uv)")
            }
            return .note(
                "PIN", "not set", advice: "sites that ask for user verification need one: `passkeyctl pin set`")
        }
        if state.retries == 0 {
            return .problem(
                "PIN", state.summary, advice: "`passkeyctl reset` (erases every credential)", status: .pinBlocked)
        }
        if state.powerCycleRequired {
            return .problem(
                "PIN", state.summary, advice: "`passkeyctl replug`, then give the right PIN", status: .pinBlocked)
        }
        return .ok("PIN", state.summary)
    }

    /// The default keystore folder; a daemon started with --data-dir uses that one instead.
    private func keystore() -> [Diagnosis] {
        let (folder, reason) = PasskeydDataFolder.choose(environment: environment)
        let why: String
        switch reason {
        case .environment: why = "from PASSKEYD_DATA_DIR"
        case .dataHome: why = "under XDG_DATA_HOME"
        case .home: why = "the default under your home folder"
        }
        var info = stat()
        guard stat(folder, &info) == 0 else {
            return [
                .note(
                    "keystore", "\(folder) (\(why)) does not exist yet",
                    advice: "passkeyd creates it at its first start (unless it was started with --data-dir elsewhere)")
            ]
        }
        let found = "\(folder) (\(why); \(Diagnosis.describe(info)))"
        guard info.st_mode & S_IFMT == S_IFDIR else {
            return [
                .problem(
                    "keystore", "\(found) is not a folder", advice: "move it away, or start passkeyd with --data-dir",
                    status: .deviceError)
            ]
        }
        if info.st_mode & 0o022 != 0 {
            return [
                .problem(
                    "keystore", "\(found) can be written by other users; passkeyd refuses to open it",
                    advice: "chmod 700 \(folder)", status: .deviceError)
            ]
        }
        var findings: [Diagnosis] = [.ok("keystore", found)]
        let keyFile = folder + "/keystore.key"
        if stat(keyFile, &info) == 0, info.st_mode & 0o077 != 0 {
            findings.append(
                .problem(
                    "key file",
                    "\(keyFile) (\(Diagnosis.describe(info))) is readable by other users; passkeyd refuses it",
                    advice: "chmod 600 \(keyFile)", status: .deviceError))
        }
        return findings
    }
}
