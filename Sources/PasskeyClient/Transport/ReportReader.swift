import CTAPHID
import Foundation
import Glibc

/// The reports a connection receives, one at a time, read on the calling task's thread.
/// Keeps the reports of a read that come after the message it was reading for (a WATCH
/// stream's next event) for the next read. A class: every read on the connection shares
/// what is left over; the transport's actor serialises them.
///
/// How it waits for a reply (docs/benchmarks.md, "PasskeyClient's socket path"): an
/// answer usually comes within a fraction of a millisecond, and waking a thread that
/// went to sleep costs ~20 µs per hop on a virtual machine, so the reader first asks the
/// socket again and again for `spin`, then blocks its own thread in poll(2) for 1 ms;
/// both keep one of the cooperative pool's few threads, so both are short. Only then it
/// suspends, holding no thread, on a Dispatch read source: the path for a person's touch
/// (up to 30 s) or a WATCH stream (forever).
final class ReportReader {
    private let socket: ReportSocket
    /// Bytes received and not yet handed out: whole reports from `offset`, maybe a partial one at the end.
    private var received: [UInt8] = []
    private var offset = 0
    /// Where recv(2) writes: room for the longest message (129 reports) in one call.
    private var scratch = [UInt8](repeating: 0, count: 129 * CTAPHIDPacket.size)

    /// How long a reply is awaited by asking the socket without blocking.
    static let spin = Duration.microseconds(Int64(ProcessInfo.processInfo.environment["PASSKEYCLIENT_SPIN_US"].flatMap(Int.init) ?? 100))
    /// How long the thread then blocks in poll(2) before the reader suspends.
    static let blockMilliseconds: Int32 = Int32(ProcessInfo.processInfo.environment["PASSKEYCLIENT_BLOCK_MS"].flatMap(Int.init) ?? 1)
    static let yields = ProcessInfo.processInfo.environment["PASSKEYCLIENT_YIELD"] == "1"
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
        /// For a reply that is on its way: spin, block briefly, then suspend. Cancellation does
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
        let spinUntil = ContinuousClock.now + (wait == .reply ? Self.spin : .zero)
        var blocked = wait != .reply
        while true {
            if let report = takeReport() { return .report(report) }
            switch receive() {
            case .ended: return nil
            case .bytes: continue
            case .nothing: break
            }
            if ContinuousClock.now < spinUntil {
                if Self.yields { sched_yield() }
                continue
            }
            if !blocked {
                blocked = true
                socket.waitOnThisThread(milliseconds: Self.blockMilliseconds)
                continue
            }
            if !(await socket.readable(within: Self.tickInterval, wakingOnCancel: wait == .stream)) { return .tick }
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
