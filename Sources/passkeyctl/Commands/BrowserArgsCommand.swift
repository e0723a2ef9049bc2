import ArgumentParser
import Foundation

extension BrowserCommands {
    /// `passkeyctl browser args --chromium --profile DIR [--headless] [--json]`: installs the
    /// native-messaging host into that Chromium user data directory for unattended automation
    /// (`browser install --automation`) and prints the arguments a test framework launches Chromium
    /// with so that the passkeyd extension is loaded in it and reaches this daemon — for the
    /// frameworks passkeyd has no fixture for (Node Playwright, Puppeteer, WebdriverIO, Java
    /// Selenium; docs/testing-web-pages.md).
    struct Args: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "args",
            abstract: "Install the host into a Chromium profile for automation and print the launch arguments.",
            discussion: """
                Runs `passkeyctl browser install --chromium --profile DIR --automation` (with this command's --socket), then prints one argument per line: --user-data-dir=DIR, --load-extension and --disable-extensions-except naming the installed extension, --headless=new with --headless, and --no-sandbox when run as root (Chromium refuses root with its sandbox). --json prints them as "arguments", and as "extensionArguments" the two a framework that manages the profile and headless mode itself (Playwright's launchPersistentContext) adds. The profile is marked as unattended automation: any page it opens gets passkeyd's signatures without anyone being asked, so it must be a profile made for tests, never one a person browses with.
                """)
        @OptionGroup var global: GlobalOptions

        @Flag(help: "Chromium (the only browser launched by arguments; Firefox loads the add-on over WebDriver BiDi).")
        var chromium = false

        @Flag(help: .hidden)
        var firefox = false

        @Option(help: "The Chromium user data directory the framework launches with (created when missing).")
        var profile: String

        @Option(
            name: .customLong("extension"),
            help: "The unpacked extension folder (default: the installed one, or the source tree's).")
        var extensionPath: String?

        @Flag(help: "Add --headless=new (Chromium's headless mode that runs extensions).")
        var headless = false

        func run() async throws {
            if firefox {
                throw Failure.usage(
                    "Firefox cannot load the extension from launch arguments: install it as a temporary add-on over WebDriver BiDi (webExtension.install), as Tests/Interop/browser_driver.py does, after `passkeyctl browser install --firefox --automation`."
                )
            }
            let profile = HostManifest.absolute(profile)
            let extensionFolder = try ExtensionFolder.find(explicit: extensionPath)
            let installed = try Self.install(profile: profile, socket: global.socket)
            let extensionArguments = [
                "--load-extension=\(extensionFolder)", "--disable-extensions-except=\(extensionFolder)"
            ]
            var arguments = ["--user-data-dir=\(profile)"] + extensionArguments
            if headless { arguments.append("--headless=new") }
            if geteuid() == 0 { arguments.append("--no-sandbox") }
            if global.json {
                Output.json(
                    .object([
                        ("browser", .string("chromium")), ("profile", .string(profile)),
                        ("extension", .string(extensionFolder)),
                        ("extensionId", .string(BrowserExtension.chromiumID)), ("host", .string(installed.host)),
                        ("socket", .optional(installed.socket)), ("automation", .bool(installed.automation)),
                        ("arguments", .array(arguments.map(JSON.string))),
                        ("extensionArguments", .array(extensionArguments.map(JSON.string)))
                    ]))
            } else {
                for argument in arguments { print(argument) }
            }
        }

        /// What `browser install` reported.
        struct Installed {
            let host: String
            let socket: String?
            let automation: Bool
        }

        /// `browser install --chromium --profile DIR --automation --json`, run as a child of this
        /// same executable, so that what `args` installs is exactly what `install` installs.
        static func install(profile: String, socket: String?) throws(Failure) -> Installed {
            let child = Process()
            child.executableURL = URL(fileURLWithPath: Install.executablePath())
            child.arguments =
                (socket.map { ["--socket", $0] } ?? [])
                + ["browser", "install", "--chromium", "--profile", profile, "--automation", "--json"]
            let output = Pipe()
            child.standardOutput = output
            child.standardError = FileHandle.nullDevice
            do {
                try child.run()
            } catch {
                throw .refused("Cannot run `passkeyctl browser install`: \(error.localizedDescription)")
            }
            let data = output.fileHandleForReading.readDataToEndOfFile()
            child.waitUntilExit()
            let reply = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
            if let failure = reply["error"] as? [String: Any] {
                let message = failure["message"] as? String ?? "failed"
                throw failure["kind"] as? String == "usage" ? .usage(message) : .refused(message)
            }
            guard child.terminationStatus == 0, let host = reply["host"] as? String else {
                throw .refused("`passkeyctl browser install` exited \(child.terminationStatus) without a result.")
            }
            return Installed(
                host: host, socket: reply["socket"] as? String, automation: reply["automation"] as? Bool ?? false)
        }
    }

    /// The unpacked extension Chromium loads: the folder named, else the one an install ships
    /// (`<prefix>/share/passkeyd/browser-extension` beside this executable's `<prefix>/bin`), else
    /// the source tree's (integrations/browser/extension above this executable's `.build` folder).
    enum ExtensionFolder {
        static func find(explicit: String?) throws(Failure) -> String {
            if let explicit {
                let path = HostManifest.absolute(explicit)
                guard FileManager.default.fileExists(atPath: path + "/manifest.json") else {
                    throw .usage("\(path) is not an unpacked extension (it has no manifest.json).")
                }
                return path
            }
            guard let found = InstallLayout.browserExtension() else {
                throw .usage(
                    "The passkeyd extension is not installed next to this passkeyctl (share/passkeyd/browser-extension) "
                        + "and this is no source tree. Install passkeyd, or name the extension's folder with --extension."
                )
            }
            return found
        }
    }
}
