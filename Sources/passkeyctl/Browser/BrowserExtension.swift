/// The names the extension and the host agree on (docs/browser-protocol.md).
enum BrowserExtension {
    /// The native-messaging host's name: the manifest's `name` and `connectNative`'s argument.
    static let hostName = "dev.passkeyd.host"
    /// The extension's id in Chromium, derived from the `key` in
    /// integrations/browser/extension/manifest.json (the first 128 bits of SHA-256 of the public
    /// key's DER, each hex digit mapped 0-f → a-p); integrations/browser/extension/EXTENSION_ID
    /// holds the same value, and a test checks that they agree.
    static let chromiumID = "pfihbggmphfibgnabamfmgdfgmnhjkdg"
    /// The extension's id in Firefox (`browser_specific_settings.gecko.id`).
    static let firefoxID = "passkeyd@passkeyd.dev"

    /// The only origin Chromium may start the host for (the manifest's `allowed_origins`).
    static var chromiumOrigin: String { "chrome-extension://\(chromiumID)/" }
}
