import CTAPHID
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The reports a connection receives, one at a time, read on the calling task's thread.
/// Keeps the reports of a read that come after the message it was reading for (a WATCH
/// stream's next event) for the next read. A class: every read on the connection shares
/// what is left over; the transport's actor serialises them.
///
/// How it waits for a reply (docs/benchmarks.md, "PasskeyClient's socket path"): a sign-in's answer
/// usually comes within 0.1 ms, a registration's within 0.3, so the reader first tries without
/// sleeping for about as long as this connection's replies have been taking (`typicalWait`),
/// yielding its core to any other runnable thread between tries, so its thread is running
/// when the answer lands (waking a sleeping thread costs about 20 µs on a VM). Then it blocks
/// its own thread in poll(2) for up to 1 ms, and the reply wakes that very thread, as a
/// blocking C client's read does: no event loop thread to wake and no hand-off back to the
/// caller. Both keep one of the cooperative pool's few threads, so they are short. Only then
/// it suspends, holding no thread, on a Dispatch read source: the path for a person's touch
/// (up to 30 s), a reply after a keepalive, or a WATCH stream (forever).
final class ReportReader {
    private let socket: ReportSocket
    /// Bytes received and not yet handed out: whole reports from `offset`, maybe a partial one at the end.
    private var received: [UInt8] = []
    private var offset = 0
    /// Where recv(2) writes: room for the longest message (129 reports) in one call.
    private var scratch = [UInt8](repeating: 0, count: 129 * CTAPHIDPacket.size)

    /// How long a reply is awaited in poll(2) on the calling thread before the reader suspends.
    static let blockMilliseconds: Int32 = 1
    /// The longest a reply is tried for without sleeping: longer than passkeyd takes for a
    /// registration on one connection.
    static let longestSpin = Duration.microseconds(500)
    /// The shortest: longer than passkeyd takes for a sign-in.
    static let shortestSpin = Duration.microseconds(100)
    /// Whether some reader of this process spins now: one at a time does, so a process with
    /// several connections waiting spins on one core at most.
    private static let spinning = Atomic<Bool>(false)
    /// How long replies have taken to start arriving on this connection, smoothed: the reader
    /// spins for half as long again (within `shortestSpin`…`longestSpin`), and not at all once
    /// it is past `longestSpin` (a busy device, whose replies a spin would seldom catch, and
    /// whose threads it would take a core from).
    private var typicalWait = Duration.microseconds(50)
    /// A suspended reader wakes this often with `.tick`, so a silent device is noticed.
    static let tickInterval = Duration.milliseconds(100)

    init(_ socket: ReportSocket) {
        self.socket = socket
    }

    /// What `next` found.
    enum Item {
        case report(ArraySlice<UInt8>)
        /// No report came for `tickInterval`.
        case tick
    }

    /// How a read waits.
    enum Wait {
        /// For a reply that is on its way: block briefly, then suspend. Cancellation does
        /// not interrupt it (a cancelled request still waits for the device's answer).
        case reply
        /// For a reply the device has said will take a while (it sent a keepalive: processing,
        /// or waiting for a person): suspend at once; cancellation does not interrupt it either.
        case slowReply
        /// For a stream's next message, which may never come: suspend at once, and end the
        /// wait with `.tick` when the task is cancelled.
        case stream
    }

    /// The next report or tick; nil once the connection ended. Reports already received
    /// come without waiting.
    func next(_ wait: Wait = .reply, isolation actor: isolated (any Actor)? = #isolation) async -> Item? {
        if let found = arrived() { return found }
        if wait == .reply {
            let began = ContinuousClock.now
            if let found = waitOnThisThread() {
                learn(ContinuousClock.now - began)
                return found
            }
            learn(Self.longestSpin * 4)
        }
        while true {
            if let found = arrived() { return found }
            if !(await socket.readable(within: Self.tickInterval, wakingOnCancel: wait == .stream)) {
                // A wait resumed late (a busy cooperative pool) may find the reply already here:
                // what arrived wins over the tick, so a silence timeout never fires on a reply
                // that came in time.
                return arrived() ?? .tick
            }
        }
    }

    /// Waits for a reply on the calling thread: spins for as long as replies have been
    /// taking (see `typicalWait`), then blocks in poll(2) for `blockMilliseconds`.
    private func waitOnThisThread() -> Item?? {
        let spin = min(max(typicalWait * 3 / 2, Self.shortestSpin), Self.longestSpin)
        if typicalWait <= Self.longestSpin,
            Self.spinning.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged
        {
            defer { Self.spinning.store(false, ordering: .releasing) }
            let spinEnd = ContinuousClock.now + spin
            while ContinuousClock.now < spinEnd {
                if let found = arrived() { return found }
                sched_yield()
            }
        }
        socket.waitOnThisThread(milliseconds: Self.blockMilliseconds)
        return arrived()
    }

    /// Folds one wait into `typicalWait` (an eighth of it), so a single slow reply changes it little.
    private func learn(_ wait: Duration) {
        typicalWait = typicalWait * 7 / 8 + min(wait, Self.longestSpin * 4) / 8
    }

    /// What has arrived, as `next` answers it (a report, or nil once the connection ended);
    /// nil (the outer optional) when nothing has.
    private func arrived() -> Item?? {
        switch take() {
        case .report(let report): return .some(.report(report))
        case .ended: return .some(nil)
        case .nothing: return nil
        }
    }

    /// What `take` found.
    private enum Taken {
        case report(ArraySlice<UInt8>)
        case ended
        case nothing
    }

    /// A whole report from what has arrived, asking the socket for more if need be; never waits.
    private func take() -> Taken {
        while true {
            if let report = takeReport() { return .report(report) }
            switch receive() {
            case .ended: return .ended
            case .nothing: return .nothing
            case .bytes: continue
            }
        }
    }

    private func takeReport() -> ArraySlice<UInt8>? {
        guard received.count - offset >= CTAPHIDPacket.size else { return nil }
        defer { offset += CTAPHIDPacket.size }
        return received[offset..<offset + CTAPHIDPacket.size]
    }

    /// Appends what has arrived to `received`, first dropping the reports already handed out.
    private func receive() -> ReportSocket.Received {
        if offset > 0 {
            received.removeFirst(offset)
            offset = 0
        }
        let result = scratch.withUnsafeMutableBytes { socket.receive(into: $0) }
        if case .bytes(let count) = result { received.append(contentsOf: scratch[..<count]) }
        return result
    }
}
