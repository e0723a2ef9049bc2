import Foundation
import PasskeydLocal

/// Where a PIN comes from: a file, the environment, or a hidden prompt on the terminal.
enum PINEntry {
    /// The current PIN: `--pin-file`, else `PASSKEYCTL_PIN`, else a hidden prompt.
    static func current(file: String?) throws(Failure) -> String {
        if let pin = try fromFile(file) ?? currentPIN { return pin }
        guard Terminal.isInteractive, let pin = Terminal.readHidden(prompt: "PIN: ") else {
            throw .usage(
                "This needs the authenticator's PIN: give it with --pin-file FILE or PASSKEYCTL_PIN, or run on a terminal."
            )
        }
        return pin
    }

    /// The PIN when `--pin-file` or `PASSKEYCTL_PIN` gives one; never prompts.
    static func given(file: String?) throws(Failure) -> String? {
        try fromFile(file) ?? currentPIN
    }

    /// A new PIN: `--new-pin-file`, else `PASSKEYCTL_NEW_PIN`, else asked twice on the terminal.
    static func new(file: String?) throws(Failure) -> String {
        if let pin = try fromFile(file) ?? newPIN { return pin }
        guard Terminal.isInteractive, let first = Terminal.readHidden(prompt: "New PIN: ") else {
            throw .usage(
                "This needs the new PIN: give it with --new-pin-file FILE or PASSKEYCTL_NEW_PIN, or run on a terminal.")
        }
        guard let second = Terminal.readHidden(prompt: "New PIN again: "), second == first else {
            throw .usage("The two PINs differ; nothing was changed.")
        }
        return first
    }

    /// The file's contents without the final newline an editor adds. A regular file is refused,
    /// as passkeyd refuses its passphrase file, when others may read or write it; a pipe or a
    /// terminal (`<(echo 4242)`, /dev/stdin) is read as it is: nobody else can read it later.
    private static func fromFile(_ path: String?) throws(Failure) -> String? {
        guard let path else { return nil }
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .usage("Cannot read the PIN file \(path): \(String(cString: strerror(errno))).") }
        let handle = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            throw .usage("Cannot read the PIN file \(path): \(String(cString: strerror(errno))).")
        }
        if info.st_mode & S_IFMT == S_IFREG, info.st_mode & 0o077 != 0 {
            throw .refused(
                "The PIN file \(path) is accessible by other users (mode \(String(info.st_mode & 0o7777, radix: 8))), so it was not used. Make it private with: chmod 600 \(path)"
            )
        }
        guard let data = try? handle.readToEnd() ?? Data(), let contents = String(data: data, encoding: .utf8) else {
            throw .usage("Cannot read the PIN file \(path): it is not UTF-8 text.")
        }
        var pin = Substring(contents)
        if pin.hasSuffix("\n") { pin = pin.dropLast() }
        if pin.hasSuffix("\r") { pin = pin.dropLast() }
        return String(pin)
    }

    /// The PIN variables, each taken out of the environment the first time it is asked for, so
    /// no child and no /proc/PID/environ reader sees it (`EnvironmentSecret`); empty is unset.
    private static let currentPIN = EnvironmentSecret.take("PASSKEYCTL_PIN").flatMap { $0.isEmpty ? nil : $0 }
    private static let newPIN = EnvironmentSecret.take("PASSKEYCTL_NEW_PIN").flatMap { $0.isEmpty ? nil : $0 }
}
