import Foundation

/// The browsers whose native-messaging host manifests `passkeyctl browser install` writes.
enum Browser: String, CaseIterable, Sendable {
    case chromium, firefox

    var displayName: String { self == .chromium ? "Chromium" : "Firefox" }
}

/// A native-messaging host manifest (Chrome's "Native messaging", "Native messaging host";
/// MDN's "Native manifests"): where the browser looks for it and what it says. The manifest
/// cannot pass arguments, so `path` names a wrapper script that starts `passkeyctl browser host`.
struct HostManifest: Sendable {
    let browser: Browser
    /// The folder the browser reads host manifests from.
    let folder: String

    var path: String { folder + "/" + BrowserExtension.hostName + ".json" }

    /// Where `browser` looks. Chromium reads `NativeMessagingHosts/` in its user data directory
    /// (`~/.config/chromium`, or the `--user-data-dir` given as `profile`); Firefox reads
    /// `~/.mozilla/native-messaging-hosts/` only, whatever the profile.
    static func location(_ browser: Browser, profile: String?, environment: [String: String]) throws(Failure)
        -> HostManifest
    {
        let home = environment["HOME"] ?? NSHomeDirectory()
        switch browser {
        case .chromium:
            let config = environment["XDG_CONFIG_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? home + "/.config"
            let dataDir = profile.map(Self.absolute) ?? config + "/chromium"
            return HostManifest(browser: browser, folder: dataDir + "/NativeMessagingHosts")
        case .firefox:
            guard profile == nil else {
                throw .usage(
                    "Firefox reads host manifests only from ~/.mozilla/native-messaging-hosts, not from a profile; drop --profile for --firefox (a test may set HOME instead)."
                )
            }
            return HostManifest(browser: browser, folder: home + "/.mozilla/native-messaging-hosts")
        }
    }

    /// The manifest's JSON: only our extension may start the host.
    func json(host: String) -> String {
        var fields: [(String, JSON)] = [
            ("name", .string(BrowserExtension.hostName)),
            ("description", .string("passkeyd: WebAuthn for web pages through the passkeyd browser extension")),
            ("path", .string(host)),
            ("type", .string("stdio"))
        ]
        switch browser {
        case .chromium: fields.append(("allowed_origins", .array([.string(BrowserExtension.chromiumOrigin)])))
        case .firefox: fields.append(("allowed_extensions", .array([.string(BrowserExtension.firefoxID)])))
        }
        return JSON.object(fields).text() + "\n"
    }

    /// The `path` of an installed manifest, or nil when there is none or it is not ours to read.
    func installedHost() -> String? {
        guard let data = FileManager.default.contents(atPath: path),
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { return nil }
        return object["path"] as? String
    }

    static func absolute(_ path: String) -> String {
        path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
    }
}

/// The script a manifest's `path` names: it starts `passkeyctl browser host` with the socket
/// chosen at install time, passing on what the browser gives (the caller's origin, or
/// Firefox's manifest path and add-on id).
struct HostWrapper: Sendable {
    let path: String

    /// Next to the manifest for a given Chromium profile, so each profile keeps its own socket;
    /// else `$XDG_DATA_HOME/passkeyd/browser-host` (default `~/.local/share`).
    static func location(profileManifest: HostManifest?, environment: [String: String]) -> HostWrapper {
        if let profileManifest { return HostWrapper(path: profileManifest.folder + "/passkeyd-browser-host") }
        let home = environment["HOME"] ?? NSHomeDirectory()
        let data = environment["XDG_DATA_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? home + "/.local/share"
        return HostWrapper(path: data + "/passkeyd/browser-host")
    }

    /// `automation` (install's `--automation`) starts the host in unattended mode: no one is
    /// asked to approve a ceremony.
    static func script(passkeyctl: String, socket: String?, automation: Bool = false) -> String {
        let socketArgument = socket.map { " --socket " + quoted($0) } ?? ""
        let modeArgument = automation ? " --automation" : ""
        return """
            #!/bin/sh
            # Written by `passkeyctl browser install`: browsers start this native-messaging host
            # (a host manifest cannot pass arguments). `passkeyctl browser uninstall` removes it.
            exec \(quoted(passkeyctl)) browser host\(modeArgument)\(socketArgument) "$@"

            """
    }

    /// A single-quoted shell word: nothing inside is interpreted.
    static func quoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
