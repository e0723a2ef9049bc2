import Foundation

/// Where a PIN comes from: a file, the environment, or a hidden prompt on the terminal.
enum PINEntry {
    /// The current PIN: `--pin-file`, else `PASSKEYCTL_PIN`, else a hidden prompt.
    static func current(file: String?) throws(Failure) -> String {
        if let pin = try fromFile(file) ?? environment("PASSKEYCTL_PIN") { return pin }
        guard Terminal.isInteractive, let pin = Terminal.readHidden(prompt: "PIN: ") else {
            throw .usage("This needs the authenticator's PIN: give it with --pin-file FILE or PASSKEYCTL_PIN, or run on a terminal.")
        }
        return pin
    }

    /// The PIN when `--pin-file` or `PASSKEYCTL_PIN` gives one; never prompts.
    static func given(file: String?) throws(Failure) -> String? {
        try fromFile(file) ?? environment("PASSKEYCTL_PIN")
    }

    /// A new PIN: `--new-pin-file`, else `PASSKEYCTL_NEW_PIN`, else asked twice on the terminal.
    static func new(file: String?) throws(Failure) -> String {
        if let pin = try fromFile(file) ?? environment("PASSKEYCTL_NEW_PIN") { return pin }
        guard Terminal.isInteractive, let first = Terminal.readHidden(prompt: "New PIN: ") else {
            throw .usage("This needs the new PIN: give it with --new-pin-file FILE or PASSKEYCTL_NEW_PIN, or run on a terminal.")
        }
        guard let second = Terminal.readHidden(prompt: "New PIN again: "), second == first else {
            throw .usage("The two PINs differ; nothing was changed.")
        }
        return first
    }

    /// The file's contents without the final newline an editor adds.
    private static func fromFile(_ path: String?) throws(Failure) -> String? {
        guard let path else { return nil }
        guard let contents = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw .usage("Cannot read the PIN file \(path).")
        }
        var pin = Substring(contents)
        if pin.hasSuffix("\n") { pin = pin.dropLast() }
        if pin.hasSuffix("\r") { pin = pin.dropLast() }
        return String(pin)
    }

    private static func environment(_ name: String) -> String? {
        guard let value = ProcessInfo.processInfo.environment[name], !value.isEmpty else { return nil }
        return value
    }
}
