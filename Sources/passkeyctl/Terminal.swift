import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The person at the keyboard, when there is one: prompts go to and come from /dev/tty.
enum Terminal {
    /// Whether standard input is a terminal, i.e. someone can answer a prompt.
    static var isInteractive: Bool { isatty(STDIN_FILENO) == 1 }

    /// Reads one line from /dev/tty with echo off (termios), for secrets. Signals from the
    /// keyboard are off too, so Ctrl-C arrives as a character that cancels the prompt instead
    /// of killing the process with echo still off; the saved settings are always restored.
    static func readHidden(prompt: String) -> String? {
        let fd = open("/dev/tty", O_RDWR | O_NOCTTY)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var saved = termios()
        guard tcgetattr(fd, &saved) == 0 else { return nil }
        var quiet = saved
        quiet.c_lflag &= ~tcflag_t(ECHO | ISIG)
        quiet.c_lflag |= tcflag_t(ECHONL)
        write(fd, prompt)
        guard tcsetattr(fd, TCSAFLUSH, &quiet) == 0 else { return nil }
        defer { _ = tcsetattr(fd, TCSAFLUSH, &saved) }
        guard let line = readLine(fd), !line.utf8.contains(Self.interrupt) else {
            write(fd, "\n")
            return nil
        }
        return line
    }

    /// Asks a yes/no question on /dev/tty; anything but y/yes is no.
    static func confirm(_ question: String) -> Bool {
        let fd = open("/dev/tty", O_RDWR | O_NOCTTY)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        write(fd, question + " [y/N] ")
        guard let answer = readLine(fd)?.trimmingCharacters(in: .whitespaces).lowercased() else { return false }
        return answer == "y" || answer == "yes"
    }

    private static func write(_ fd: Int32, _ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBufferPointer { Glibc.write(fd, $0.baseAddress, $0.count) }
    }

    /// Ctrl-C as a character, when ISIG is off.
    private static let interrupt: UInt8 = 0x03

    /// Bytes up to a newline, Ctrl-C or end of file; nil when nothing at all could be read.
    private static func readLine(_ fd: Int32) -> String? {
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while true {
            let n = Glibc.read(fd, &byte, 1)
            if n <= 0 { return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self) }
            if byte == interrupt { return String(decoding: bytes + [byte], as: UTF8.self) }
            if byte == UInt8(ascii: "\n") { break }
            bytes.append(byte)
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
