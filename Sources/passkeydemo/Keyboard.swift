import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The terminal's keys, one at a time. Standard input is put in raw mode (no echo, no line
/// buffering, Ctrl-C as a key) and read on a thread of its own, so a blocking read never holds
/// one of the cooperative threads; the saved settings come back with `restore()`.
actor Keyboard {
    private var buffered: [Key] = []
    /// The reader waiting for a key (numbered, so a cancellation ends only its own wait).
    private var waiting: (reader: UInt64, continuation: CheckedContinuation<Key, Never>)?
    private var readers: UInt64 = 0
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
            waiting.continuation.resume(returning: key)
        } else {
            buffered.append(key)
        }
    }

    /// The next key. One reader at a time: a second caller takes over and the first gets `.escape`.
    /// A reader whose task is cancelled (a touch prompt the ceremony no longer needs) gets `.escape`
    /// too, and only that reader: a cancelled prompt never takes the key the next screen waits for.
    func next() async -> Key {
        if Task.isCancelled { return .escape }
        if !buffered.isEmpty { return buffered.removeFirst() }
        readers &+= 1
        let reader = readers
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                waiting?.continuation.resume(returning: .escape)
                waiting = (reader, continuation)
            }
        } onCancel: {
            // Runs where `cancel()` was called; the hop onto the actor lands after `next()` has
            // stored its continuation, since the actor runs one job at a time.
            Task { await self.giveUp(reader) }
        }
    }

    /// Ends `reader`'s wait with `.escape`, if it is still the one waiting.
    private func giveUp(_ reader: UInt64) {
        guard let waiting, waiting.reader == reader else { return }
        self.waiting = nil
        waiting.continuation.resume(returning: .escape)
    }
}
