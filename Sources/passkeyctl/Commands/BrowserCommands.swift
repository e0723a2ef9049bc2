import ArgumentParser
import Foundation
import PasskeydLocal

/// `passkeyctl browser host|install|uninstall`: passkeyd for web pages, through the passkeyd
/// browser extension and this native-messaging host (docs/browser-protocol.md).
struct BrowserCommands: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "browser",
        abstract: "Serve web pages' navigator.credentials from passkeyd through the browser extension.",
        subcommands: [Host.self, Install.self, Uninstall.self, Args.self])

    struct Host: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "The native-messaging host a browser starts (not run by hand): length-prefixed JSON on standard input and output."
        )
        @OptionGroup var global: GlobalOptions

        /// What the browser passes: Chromium the caller's origin (chrome-extension://ID/), Firefox
        /// the manifest's path and the add-on's id. The browser has already checked them against
        /// the manifest's allowed callers, so they are only reported.
        @Flag(
            help:
                "Unattended automation (tests, CI): approve each ceremony without asking; choosers and PIN entry still ask."
        )
        var automation = false

        @Argument(parsing: .allUnrecognized, help: .hidden)
        var caller: [String] = []

        func run() async throws {
            // A browser that closes the port while an answer is written must not kill the host mid-ceremony.
            signal(SIGPIPE, SIG_IGN)
            HostMode.automation = automation
            let host = BrowserHost(
                port: BrowserPort(writer: NativeMessaging.Writer(descriptor: STDOUT_FILENO)), socket: global.socketPath)
            let (frames, sink) = AsyncStream.makeStream(of: NativeMessaging.Frame.self)
            // Blocking reads on a thread of their own: the cooperative pool has one thread per core.
            let reader = Thread {
                let reader = NativeMessaging.Reader(descriptor: STDIN_FILENO)
                while true {
                    let frame = reader.next()
                    sink.yield(frame)
                    guard frame.streamGoesOn else { break }
                }
                sink.finish()
            }
            reader.start()
            if case .broken(let reason) = await host.serve(frames) {
                Output.error("passkeyctl browser host: \(reason).")
                throw ExitCode(ExitStatus.usage.rawValue)
            }
        }
    }

    /// Which browsers a command is for: the ones named, else both.
    struct Browsers: ParsableArguments {
        @Flag(help: "Chromium (and its user data directory).")
        var chromium = false
        @Flag(help: "Firefox.")
        var firefox = false
        @Option(help: "A Chromium user data directory (--user-data-dir) instead of ~/.config/chromium.")
        var profile: String?

        var chosen: [Browser] {
            let named = Browser.allCases.filter { $0 == .chromium ? chromium : firefox }
            if named.isEmpty { return profile == nil ? Browser.allCases : [.chromium] }
            return named
        }

        func manifests() throws(Failure) -> [HostManifest] {
            var manifests: [HostManifest] = []
            for browser in chosen {
                manifests.append(
                    try HostManifest.location(
                        browser, profile: profile, environment: ProcessInfo.processInfo.environment))
            }
            return manifests
        }

        func wrapper(_ manifests: [HostManifest]) -> HostWrapper {
            HostWrapper.location(
                profileManifest: profile == nil ? nil : manifests.first,
                environment: ProcessInfo.processInfo.environment)
        }
    }

    struct Install: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Register the native-messaging host with Chromium and Firefox (or the one named).",
            discussion: """
                Writes the host manifest where the browser looks (Chromium: ~/.config/chromium/NativeMessagingHosts, or --profile DIR/NativeMessagingHosts; Firefox: ~/.mozilla/native-messaging-hosts), naming only the passkeyd extension, and a script that starts `passkeyctl browser host`. A socket given with --socket or PASSKEYD_SOCKET is written into the script; otherwise the host finds the socket as every client does.

                By default the person approves every sign-in and registration in a window of the extension's own, naming the site and the account. --automation marks this install (this profile, or the user-level host) as unattended automation for tests and CI: ceremonies are approved without asking, so any page the browser opens can use its passkeys. Never use it for the browser you browse with.
                """)
        @OptionGroup var global: GlobalOptions
        @OptionGroup var browsers: Browsers
        @Flag(
            help:
                "Unattended automation (tests, CI): the host approves each ceremony without asking anyone. Not for everyday browsing."
        )
        var automation = false

        func run() async throws {
            let manifests = try browsers.manifests()
            let wrapper = browsers.wrapper(manifests)
            let passkeyctl = Self.executablePath()
            let socket =
                global.socket
                ?? ProcessInfo.processInfo.environment["PASSKEYD_SOCKET"].flatMap { $0.isEmpty ? nil : $0 }
            let wrapperFolder = try OwnFolder.prepare((wrapper.path as NSString).deletingLastPathComponent)
            try wrapperFolder.write(
                HostWrapper.script(
                    passkeyctl: passkeyctl, socket: socket.map(HostManifest.absolute), automation: automation),
                to: (wrapper.path as NSString).lastPathComponent, mode: 0o755)
            for manifest in manifests {
                try OwnFolder.prepare(manifest.folder).write(
                    manifest.json(host: wrapper.path), to: BrowserExtension.hostName + ".json", mode: 0o644)
            }
            if global.json {
                Output.json(
                    .object([
                        ("host", .string(wrapper.path)), ("passkeyctl", .string(passkeyctl)),
                        ("socket", .optional(socket)), ("automation", .bool(automation)),
                        (
                            "manifests",
                            .array(
                                manifests.map {
                                    .object([("browser", .string($0.browser.rawValue)), ("path", .string($0.path))])
                                })
                        )
                    ]))
                return
            }
            print(
                "Host: \(wrapper.path) (starts \(passkeyctl) browser host\(automation ? " --automation" : "")\(socket.map { " on \($0)" } ?? ""))"
            )
            print(
                automation
                    ? "Mode: unattended automation: every page's ceremonies are approved without asking anyone (tests and CI only)."
                    : "Mode: the person approves each sign-in and registration in the extension's window.")
            for manifest in manifests {
                print("\(manifest.browser.displayName): \(manifest.path)")
            }
            print("")
            print(Self.loadingAdvice(for: manifests.map(\.browser), profile: browsers.profile))
        }

        /// passkeyctl's own absolute path, for the script (the browser starts it from anywhere).
        static func executablePath() -> String {
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
                ?? HostManifest.absolute(CommandLine.arguments[0])
        }

        static func loadingAdvice(for browsers: [Browser], profile: String?) -> String {
            let folder = InstallLayout.browserExtension()
            let named = folder ?? "FOLDER"
            var lines = [
                "Then load the passkeyd extension ("
                    + (folder
                        ?? "integrations/browser/extension in the source tree, or share/passkeyd/browser-extension where passkeyd is installed")
                    + "):"
            ]
            if browsers.contains(.chromium) {
                // Chromium 137+ ignores --load-extension unless that feature is disabled.
                lines.append(
                    "  Chromium: chrome://extensions → Developer mode → Load unpacked → that folder, or start it with"
                        + " --load-extension=\(named) --disable-extensions-except=\(named)"
                        + " --disable-features=DisableLoadExtensionCommandLineSwitch"
                        + (profile.map { " --user-data-dir=\($0)" } ?? ""))
            }
            if browsers.contains(.firefox) {
                lines.append(
                    "  Firefox: about:debugging#/runtime/this-firefox → Load Temporary Add-on → its manifest.json")
            }
            return lines.joined(separator: "\n")
        }
    }

    struct Uninstall: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Remove the host manifests (and the host script once no browser lists it).")
        @OptionGroup var global: GlobalOptions
        @OptionGroup var browsers: Browsers

        func run() async throws {
            let manifests = try browsers.manifests()
            var removed: [String] = []
            for manifest in manifests where unlink(manifest.path) == 0 { removed.append(manifest.path) }
            let wrapper = browsers.wrapper(manifests)
            // The script serves every browser at user level: it goes with the last manifest naming it.
            let others = Browser.allCases.compactMap {
                try? HostManifest.location(
                    $0, profile: browsers.profile, environment: ProcessInfo.processInfo.environment)
            }
            if !others.contains(where: { $0.installedHost() == wrapper.path }), unlink(wrapper.path) == 0 {
                removed.append(wrapper.path)
            }
            if global.json {
                Output.json(.object([("removed", .array(removed.map(JSON.string)))]))
            } else if removed.isEmpty {
                print("Nothing to remove: the host is not installed there.")
            } else {
                for path in removed { print("Removed \(path)") }
            }
        }
    }
}
