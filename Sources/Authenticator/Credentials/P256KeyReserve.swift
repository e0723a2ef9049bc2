import Crypto
import Foundation
import Synchronization

/// P-256 key pairs generated ahead of the registrations that take them, on a thread of their
/// own scheduled only on CPU time nothing else wants (`SCHED_IDLE`). With one client a
/// registration takes a key instead of computing one on its own thread (~20 µs for the scalar
/// multiplication, ~7 µs for the public point's coordinates; docs/benchmarks.md); with every
/// core busy the thread may not run at all, the reserve runs dry and registrations generate
/// their own as before, so nothing is lost.
///
/// A key is taken once, removed as it is taken, and never known to anything else: it is as
/// fresh as one generated on the spot (CTAP 2.1 §6.1.2 step 16 asks only for a new key pair).
///
/// Takers never wait for the lock: should the filling thread hold it (while it adds a key), a
/// taker generates its own key instead, so a thread that runs only on idle CPU never holds
/// up a registration.
final class P256KeyReserve: Sendable {
    /// The process's reserve, started by the first take.
    static let shared = P256KeyReserve(capacity: 64)

    let capacity: Int
    /// Whether the filling thread runs at `SCHED_IDLE`: only on CPU time nothing else wants,
    /// which can be none at all for as long as every core is busy (measured: 60 s beside two
    /// busy loops on this machine's Linux 6.18).
    let idleOnly: Bool
    private let keys = Mutex<[P256KeyPair]>([])
    private let started = Atomic<Bool>(false)
    /// Signalled when a take leaves the reserve half full, and when the reserve is let go.
    private let wanted = DispatchSemaphore(value: 0)

    init(capacity: Int, idleOnly: Bool = true) {
        self.capacity = capacity
        self.idleOnly = idleOnly
    }

    deinit { wanted.signal() }

    /// Keys ready to be taken.
    var count: Int { keys.withLock { $0.count } }

    /// A key from the reserve, or nil when it is empty or its thread is adding one.
    func take() -> P256KeyPair? {
        if !started.exchange(true, ordering: .relaxed) { startFilling() }
        guard let (key, left) = keys.withLockIfAvailable({ keys in (keys.popLast(), keys.count) }) else { return nil }
        if key != nil, left == capacity / 2 { wanted.signal() }
        return key
    }

    /// Linux's `SCHED_IDLE` (uapi/linux/sched.h), which Glibc declares only for `_GNU_SOURCE`.
    private static let schedIdle: Int32 = 5

    private func startFilling() {
        let (wanted, idleOnly) = (wanted, idleOnly)
        let thread = Thread { [weak self] in
            var idle = sched_param()
            // Below every ordinary thread: a reserve is worth only CPU time no one else wants.
            if idleOnly { _ = sched_setscheduler(0, Self.schedIdle, &idle) }
            // Not held while waiting: a reserve let go wakes this thread, which then ends.
            while Self.fill(self) { wanted.wait() }
        }
        thread.name = "passkeyd-keys"
        thread.start()
    }

    /// Fills `reserve` unless it was let go; false then.
    private static func fill(_ reserve: P256KeyReserve?) -> Bool {
        guard let reserve else { return false }
        reserve.fill()
        return true
    }

    /// Generates keys until the reserve is full; the lock is held only to add each one.
    private func fill() {
        while count < capacity {
            guard let key = try? CredentialKey.generateP256() else { return }
            keys.withLock { $0.append(key) }
        }
    }
}
