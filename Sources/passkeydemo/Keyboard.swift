import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The terminal's keys, one at a time. Standard input is put in raw mode (no echo, no line
/// buffering, Ctrl-C as a key) and read on a thread of its own, so a blocking read never holds
/// one of the cooperative threads; the saved settings come back with `restore()`.
actor Keyboard {
    private var buffered: [Key] = []
    private var waiting: CheckedContinuation<Key, Never>?
    /// The settings found at start, put back by `restore()`.
    private nonisolated let original: termios?

    private init(original: termios?) {
        self.original = original
    }

    /// Raw mode on standard input and the reading thread; keys arrive in the order typed.
    static func start() -> Keyboard {
        let keyboard = Keyboard(original: enterRawMode())
        let (stream, continuation) = AsyncStream.makeStream(of: Key.self)
        let reader = Thread {
            var pending: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 64)
            while true {
                let count = read(STDIN_FILENO, &buffer, buffer.count)
                if count < 0, errno == EINTR { continue }
                guard count > 0 else {
                    continuation.yield(.quit)
                    break
                }
                pending += buffer[..<count]
                // A lone ESC stays a key: nothing that follows it arrived in the same read.
                if pending == [0x1B] {
                    continuation.yield(.escape)
                    pending = []
                }
                while let key = Key.decode(&pending) { continuation.yield(key) }
            }
            continuation.finish()
        }
        reader.start()
        Task { for await key in stream { await keyboard.deliver(key) } }
        return keyboard
    }

    /// Puts the terminal back as it was.
    nonisolated func restore() {
        guard var original else { return }
        _ = tcsetattr(STDIN_FILENO, TCSAFLUSH, &original)
    }

    /// No echo, no line buffering, Ctrl-C and Ctrl-D as keys; returns the settings it replaced.
    private static func enterRawMode() -> termios? {
        var settings = termios()
        guard tcgetattr(STDIN_FILENO, &settings) == 0 else { return nil }
        var raw = settings
        raw.c_lflag &= ~tcflag_t(ECHO | ICANON | ISIG | IEXTEN)
        raw.c_iflag &= ~tcflag_t(IXON | ICRNL)
        _ = tcsetattr(STDIN_FILENO, TCSAFLUSH, &raw)
        return settings
    }

    func deliver(_ key: Key) {
        if let waiting {
            self.waiting = nil
            waiting.resume(returning: key)
        } else {
            buffered.append(key)
        }
    }

    /// The next key. One reader at a time: a second caller takes over and the first gets `.escape`.
    func next() async -> Key {
        if !buffered.isEmpty { return buffered.removeFirst() }
        waiting?.resume(returning: .escape)
        return await withCheckedContinuation { waiting = $0 }
    }

    /// Gives up a pending `next()` (it returns `.escape`), e.g. when the prompt it served has gone.
    func abandon() {
        waiting?.resume(returning: .escape)
        waiting = nil
    }
}
