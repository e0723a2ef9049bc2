import ArgumentParser
import Authenticator
import CTAP
import Foundation
import Keystore
import Logging
import PasskeyDaemon
import PasskeydLocal

/// The passkeyd executable: options from flags or environment, then the server until SIGTERM/SIGINT.
@main
struct Passkeyd: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "passkeyd",
        abstract: "A software FIDO2 authenticator: CTAP 2.1 over CTAPHID on a Unix socket.",
        discussion: """
            Every option can also come from the environment: PASSKEYD_SOCKET, PASSKEYD_DATA_DIR,
            PASSKEYD_PASSPHRASE_FILE, PASSKEYD_PASSPHRASE (the passphrase itself), PASSKEYD_PRESENCE,
            PASSKEYD_UV, PASSKEYD_DESKTOP_PROMPT, PASSKEYD_PROFILE, PASSKEYD_PID_FILE, PASSKEYD_LOG_LEVEL, PASSKEYD_COUNTER, PASSKEYD_ATTESTATION, PASSKEYD_BIO (1 for --bio), PASSKEYD_BUSY_POLL,
            PASSKEYD_ALLOW_PRIVATE_KEY_EXPORT (1 for --allow-private-key-export). A flag wins over the environment.
            """,
        version: DaemonInfo.currentVersion)

    @Option(
        help:
            "The CTAPHID socket (default $XDG_RUNTIME_DIR/passkeyd/ctaphid.sock, else /tmp/passkeyd-$UID/ctaphid.sock)."
    )
    var socket: String?
    @Option(
        name: .customLong("data-dir"),
        help: "The keystore folder (default $XDG_DATA_HOME/passkeyd, else ~/.local/share/passkeyd).")
    var dataDir: String?
    @Option(
        name: .customLong("passphrase-file"), help: "A file holding the keystore passphrase (trailing newline ignored)."
    )
    var passphraseFile: String?
    @Option(
        help:
            "User presence: auto (default: every request approved at once, for tests and CI), prompt (the person answers: a desktop notification, or passkeyctl approve/deny) or deny. For everyday use: prompt (docs/everyday.md)."
    )
    var presence: String?
    @Option(
        help:
            "Built-in user verification: auto (default: a simulated reading that matches at once; under --presence prompt the touch is still asked), prompt (the person answers, as for --presence prompt), deny or off (no built-in UV: the PIN verifies)."
    )
    var uv: String?
    @Option(
        name: .customLong("desktop-prompt"),
        help:
            "Prompts as desktop notifications with Allow/Deny (notify-send over the session bus): auto (default: when DBUS_SESSION_BUS_ADDRESS or $XDG_RUNTIME_DIR/bus names a session bus) or off (passkeyctl approve/deny only)."
    )
    var desktopPrompt: String?
    @Option(
        help:
            "The kind of key to be: u2f, fido2.0, fido2.1-pre, fido2.1 or fido2.2 (default fido2.1; docs/profiles.md).")
    var profile: String?
    @Flag(
        help:
            "Built-in UV is a simulated fingerprint reader: configured once a finger is enrolled (passkeyctl bio enroll); --uv says how a finger reads (off by default)."
    )
    var bio = false
    @Flag(
        name: .customLong("backup-eligible"),
        help: "New credentials are backup eligible (WebAuthn flag BE); off, as on a hardware key.")
    var backupEligible = false
    @Flag(
        name: .customLong("backup-state"),
        help: "New credentials are backed up (flag BS); needs --backup-eligible (off by default).")
    var backupState = false
    @Option(help: "Signature counters: per-credential (default), global, or zero (as synced passkeys report).")
    var counter: String?
    @Option(
        help:
            "Attestation: self (default, packed self attestation), x5c (packed, chained to this keystore's test root: passkeyctl attestation-ca) or none."
    )
    var attestation: String?
    @Option(
        name: .customLong("busy-poll"),
        help:
            "Microseconds a connection's event loop keeps polling after each answer before it sleeps, so the next request is read without a wake-up; 0 turns it off (default 200; docs/benchmarks.md)."
    )
    var busyPoll: String?
    @Flag(
        name: .customLong("allow-private-key-export"),
        help:
            "Let `passkeyctl export --include-private-keys` take private keys out (with the PIN once one is set); off by default (docs/keystore.md)."
    )
    var allowPrivateKeyExport = false
    // Test-suite flags (docs/testing-your-relying-party.md; the Python package's VirtualAuthenticator).
    @Option(
        help:
            "getInfo transports: usb (default), or internal (a platform authenticator: the browser host reports attachment platform), nfc, ble, smart-card, hybrid."
    )
    var transport: String?
    @Option(
        name: .customLong("without-extension"),
        help:
            "Offer the profile without this extension (repeatable): largeBlobKey, credBlob, minPinLength, hmac-secret, …"
    )
    var withoutExtensions: [String] = []
    @Flag(
        name: .customLong("open-test-controls"),
        help:
            "The credential test controls (import, export, credential flags and delete) need no PIN/UV token: for a throw-away daemon of a test suite (docs/vendor-commands.md)."
    )
    var openTestControls = false
    @Flag(
        name: .customLong("no-resident-keys"),
        help: "A key without discoverable credentials: getInfo rk false, makeCredential with rk refused.")
    var noResidentKeys = false
    @Flag(help: "Run in the background; exit once the socket accepts connections.")
    var detach = false
    @Option(name: .customLong("pid-file"), help: "Write the daemon's pid here once it is ready.")
    var pidFile: String?
    @Option(
        name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error or critical (default info).")
    var logLevel: String?
    @Option(
        name: .customLong("log-file"), help: "With --detach: append the daemon's log here instead of discarding it.")
    var logFile: String?

    private var environment: [String: String] { ProcessInfo.processInfo.environment }

    /// A bad value is a usage error, as an unknown flag is: exit 64 (EX_USAGE) with the usage line.
    mutating func validate() throws {
        do { _ = try settings() } catch { throw ValidationError(error.message) }
    }

    func run() async throws {
        // Before any secret is in memory: nothing of it may reach a core file (issue 33, F4).
        try CoreDumps.disable()
        // Out of the environment before anything can copy it (hardening F7).
        let environmentPassphrase = Detach.inheritedPassphrase() ?? EnvironmentPassphrase.take()
        var settings = try settings()
        let activation: SocketActivation.Inherited?
        do { activation = try SocketActivation.take() } catch {
            throw ValidationFailure(message: "passkeyd: \(error.description)")
        }
        if let activation {
            guard !detach else {
                throw ValidationFailure(
                    message:
                        "passkeyd: a socket-activated passkeyd runs in the foreground; remove --detach from the unit's ExecStart"
                )
            }
            // The socket is where the manager bound it; --socket only names where to bind one.
            settings.socket = activation.path
            settings.listener = .inherited(descriptor: activation.descriptor)
        }
        if detach, Detach.childDescriptor == nil {
            do {
                let child = try Detach.spawnChild(logFile: logFile, passphrase: environmentPassphrase)
                print("passkeyd started in the background (pid \(child)) on \(settings.socket)")
                return
            } catch {
                throw ValidationFailure(message: "passkeyd: \(error.description)")
            }
        }
        try await serve(settings, environmentPassphrase: environmentPassphrase)
    }

    /// `environmentPassphrase` is used to open the keystore and then held by nothing: neither
    /// `Settings` nor the device keeps the passphrase for the daemon's life (issue 33, F4).
    private func serve(_ settings: Settings, environmentPassphrase: consuming String?) async throws {
        let termination = TerminationSignal.install()
        let level = settings.logLevel
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "passkeyd")
        let readiness = Detach.childDescriptor
        func fail(_ message: String) -> Error {
            if let readiness { Detach.report("error: \(message)", on: readiness) }
            return ValidationFailure(message: "passkeyd: \(message)")
        }

        // Faults and watchers: never persisted, so a restart disarms every fault.
        let controls = TestControls(
            logger: Logger(label: "passkeyd.controls"), admitsTokenlessCredentialControls: openTestControls)
        // A prompt is also shown on the desktop where the session has a bus (docs/everyday.md).
        let promptTimeout = Duration.seconds(30)
        let notifier =
            settings.desktopPrompts
            ? DesktopNotification.forSession(environment: environment, timeout: promptTimeout) : nil
        let broker = PromptBroker(
            timeout: promptTimeout, controls: controls, notifier: notifier,
            modes: PromptModes(
                presence: settings.presence, verification: settings.verification, desktopPrompt: notifier != nil))
        let presence = DaemonUserPresence(mode: settings.presence, broker: broker)
        let verifier = DaemonUserVerifier(
            mode: settings.verification, broker: broker, presence: settings.presence)
        let device: DeviceFactory.Device
        do {
            device = try await DeviceFactory.make(
                dataDirectory: settings.dataDirectory,
                passphrase: try settings.passphrase(given: environmentPassphrase),
                presence: presence, verifier: verifier, configuration: settings.configuration, controls: controls,
                logger: logger)
        } catch { throw fail("\(error)") }
        environmentPassphrase = nil

        let server: CTAPHIDServer
        do {
            server = try await CTAPHIDServer.start(
                configuration: .init(
                    socketPath: settings.socket, listener: settings.listener, busyPoll: settings.busyPoll,
                    quickTransactionsOnLoop: !SpeedMechanisms.turnedOffByEnvironment.contains(.taskExecutor),
                    acceptThread: !SpeedMechanisms.turnedOffByEnvironment.contains(.acceptThread)),
                handler: device.handler, broker: broker,
                controls: controls, logger: Logger(label: "passkeyd.server"))
        } catch {
            await device.close()
            throw fail(error.description)
        }
        let pidFile = settings.pidFile.map(PidFile.init(path:))
        do { try pidFile?.write() } catch {
            await server.stop()
            await device.close()
            throw fail("cannot write pid file \(settings.pidFile ?? ""): \(error.localizedDescription)")
        }
        if let readiness { Detach.report("ready", on: readiness) }
        logger.info(
            "ready",
            metadata: [
                "socket": "\(settings.socket)", "presence": "\(settings.presence.rawValue)",
                "uv": "\(settings.verification.rawValue)", "desktopPrompt": "\(notifier != nil)",
                "profile": "\(settings.profile)", "activated": "\(settings.listener != .bind)",
                "counter": "\(settings.counter.rawValue)", "backupEligible": "\(settings.backup.eligible)",
                "backupState": "\(settings.backup.backedUp)",
                "attestation": "\(settings.attestation.rawValue)", "bio": "\(settings.fingerprintSensor != nil)",
                "privateKeyExport": "\(settings.allowsPrivateKeyExport)"
            ])

        let signal = await termination.wait()
        logger.info("stopping", metadata: ["signal": "\(signal)"])
        await server.stop()
        await device.close()
        pidFile?.remove()
    }

    /// The options after the environment has filled the gaps.
    private struct Settings {
        var socket: String
        var dataDirectory: String
        var passphraseFile: String?
        var presence: PresenceMode
        var verification: VerificationMode
        /// Whether prompts are shown as desktop notifications where a session bus exists.
        var desktopPrompts: Bool
        var profile: DeviceProfile
        var pidFile: String?
        var logLevel: Logger.Level
        /// `.inherited` under socket activation, filled in by `run()`.
        var listener: ListeningSocket = .bind
        var backup: BackupFlags
        var counter: SignatureCounterMode
        var attestation: AttestationMode
        var fingerprintSensor: FingerprintSensor?
        var busyPoll: Duration
        var allowsPrivateKeyExport: Bool

        /// What kind of device the authenticator presents itself as.
        var configuration: Authenticator.Configuration {
            var configuration = Authenticator.Configuration(profile: profile)
            configuration.backup = backup
            configuration.signatureCounter = counter
            configuration.attestation = attestation
            configuration.fingerprintSensor = fingerprintSensor
            configuration.allowsPrivateKeyExport = allowsPrivateKeyExport
            return configuration
        }

        /// The passphrase file's, else `PASSKEYD_PASSPHRASE` as `run()` took it out of the environment.
        func passphrase(given environmentPassphrase: String?) throws(ValidationFailure) -> String? {
            if let passphraseFile {
                let contents = try Self.readPrivateFile(passphraseFile)
                // Only the final newline an editor adds; the passphrase's own bytes are kept.
                return contents.hasSuffix("\n") ? String(contents.dropLast()) : contents
            }
            return environmentPassphrase
        }

        /// A secret file's text, refused (as ssh refuses a private key) when others can read or write it.
        private static func readPrivateFile(_ path: String) throws(ValidationFailure) -> String {
            let fd = open(path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { throw ValidationFailure(message: "cannot read passphrase file \(path)") }
            let handle = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
            var info = stat()
            guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
                throw ValidationFailure(message: "cannot read passphrase file \(path): not a regular file")
            }
            guard info.st_mode & 0o077 == 0 else {
                throw ValidationFailure(
                    message: """
                        The passphrase file \(path) is accessible by other users (mode \(KeystoreError.octal(UInt32(info.st_mode)))), \
                        so it was not used. Make it private with: chmod 600 \(path)
                        """)
            }
            let data: Data
            do { data = try handle.readToEnd() ?? Data() } catch {
                throw ValidationFailure(message: "cannot read passphrase file \(path)")
            }
            guard let text = String(data: data, encoding: .utf8) else {
                throw ValidationFailure(message: "cannot read passphrase file \(path): it is not UTF-8 text")
            }
            return text
        }
    }

    private func settings() throws(ValidationFailure) -> Settings {
        let presenceMode = try choose(
            presence, "PASSKEYD_PRESENCE", PresenceMode.auto.rawValue, PresenceMode.init(rawValue:)
        ) {
            "--presence must be auto, prompt or deny, not '\($0)'"
        }
        let verification = try choose(
            uv, "PASSKEYD_UV", VerificationMode.auto.rawValue, VerificationMode.init(rawValue:)
        ) {
            "--uv must be auto, prompt, deny or off, not '\($0)'"
        }
        let desktopPrompts = try choose(
            desktopPrompt, "PASSKEYD_DESKTOP_PROMPT", "auto", { ["auto": true, "off": false][$0] }
        ) {
            "--desktop-prompt must be auto or off, not '\($0)'"
        }
        let chosenProfile = try choose(
            profile, "PASSKEYD_PROFILE", DeviceProfile.fido21.name, DeviceProfile.init(named:)
        ) {
            "--profile must be one of \(DeviceProfile.all.map(\.name).joined(separator: ", ")), not '\($0)'"
        }
        let chosenTransport = try choose(
            transport, "PASSKEYD_TRANSPORT", "usb", { DeviceProfile.knownTransports.contains($0) ? $0 : nil }
        ) {
            "--transport must be one of \(DeviceProfile.knownTransports.joined(separator: ", ")), not '\($0)'"
        }
        guard
            let deviceProfile = chosenProfile.reached(over: chosenTransport).without(extensions: Set(withoutExtensions))
                .map({ noResidentKeys ? $0.withoutResidentKeys() : $0 })
        else {
            throw ValidationFailure(
                message:
                    "--without-extension names an extension the profile does not offer (\(withoutExtensions.joined(separator: ", ")))"
            )
        }
        guard let backup = BackupFlags(eligible: backupEligible, backedUp: backupState) else {
            throw ValidationFailure(
                message:
                    "--backup-state needs --backup-eligible: a credential that is not eligible for backup cannot be backed up (WebAuthn L3 §6.1)"
            )
        }
        let counterMode = try choose(
            counter, "PASSKEYD_COUNTER", SignatureCounterMode.perCredential.rawValue,
            SignatureCounterMode.init(rawValue:)
        ) {
            "--counter must be per-credential, global or zero, not '\($0)'"
        }
        let attestationMode = try choose(
            attestation, "PASSKEYD_ATTESTATION", AttestationMode.selfAttestation.rawValue,
            AttestationMode.init(rawValue:)
        ) {
            "--attestation must be none, self or x5c, not '\($0)'"
        }
        // The sensor's samples and matches are the --uv mode's answers; off leaves nothing to answer.
        let fingerprintReader = bio || environment["PASSKEYD_BIO"] == "1"
        if fingerprintReader, verification == .off {
            throw ValidationFailure(
                message:
                    "--bio needs --uv auto, prompt or deny: the mode says how a finger on the simulated reader reads")
        }
        let level = try choose(logLevel, "PASSKEYD_LOG_LEVEL", Logger.Level.info.rawValue, Logger.Level.init(rawValue:))
        { _ in
            "--log-level must be one of trace, debug, info, notice, warning, error, critical"
        }
        let defaultBusyPoll = Int(CTAPHIDServer.Configuration.defaultBusyPoll / .microseconds(1))
        let busyPollMicroseconds = try choose(
            busyPoll, "PASSKEYD_BUSY_POLL", "\(defaultBusyPoll)", { Int($0).flatMap { 0...100_000 ~= $0 ? $0 : nil } }
        ) {
            "--busy-poll must be a number of microseconds from 0 to 100000, not '\($0)'"
        }
        return Settings(
            socket: socket ?? PasskeydSocket.defaultPath(environment: environment),
            dataDirectory: dataDir ?? PasskeydDataFolder.choose(environment: environment).path,
            passphraseFile: passphraseFile ?? environment["PASSKEYD_PASSPHRASE_FILE"],
            presence: presenceMode, verification: verification, desktopPrompts: desktopPrompts,
            profile: deviceProfile,
            pidFile: pidFile ?? environment["PASSKEYD_PID_FILE"], logLevel: level, backup: backup, counter: counterMode,
            attestation: attestationMode, fingerprintSensor: fingerprintReader ? FingerprintSensor() : nil,
            busyPoll: .microseconds(busyPollMicroseconds),
            allowsPrivateKeyExport: allowPrivateKeyExport || environment["PASSKEYD_ALLOW_PRIVATE_KEY_EXPORT"] == "1")
    }

    /// An option's value: the flag, else the environment variable, else the default; read by
    /// `parse`, or refused with `refusal(text)`.
    private func choose<T>(
        _ flag: String?, _ variable: String, _ fallback: String, _ parse: (String) -> T?,
        refusal: (String) -> String
    ) throws(ValidationFailure) -> T {
        let text = flag ?? environment[variable] ?? fallback
        guard let value = parse(text) else { throw ValidationFailure(message: refusal(text)) }
        return value
    }
}

/// A start-up failure with the message the user sees.
struct ValidationFailure: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}
