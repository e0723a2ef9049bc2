import Synchronization

/// How many connections an event loop serves, so a transaction knows whether blocking its
/// loop stalls anyone else.
///
/// A registration's answer waits for the store's flush, an `fdatasync` that the waiting task
/// runs on its own thread (`Keystore.durable`). On the connection's loop that is the cheapest
/// place (no thread to wake before or after), as long as the loop serves nobody else; when it
/// does, the others' requests would wait behind the flush, so the wait moves to the pool. With
/// four clients on two loops: 3 000-3 100 registrations/s flushing on the loop, 3 700-3 900/s
/// off it; with one client, 3 % the other way (docs/benchmarks.md).
final class LoopOccupancy: Sendable {
    private let connections = Atomic<Int>(0)

    func enter() { connections.add(1, ordering: .relaxed) }
    func leave() { connections.subtract(1, ordering: .relaxed) }

    /// True when another connection is served on this loop too.
    var isShared: Bool { connections.load(ordering: .relaxed) > 1 }
}
