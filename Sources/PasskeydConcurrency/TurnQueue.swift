/// Callers take turns, first come first served: what an actor uses to run one
/// request at a time across its own suspension points. Kept inside the actor, which
/// waits with `withCheckedContinuation { queue.wait($0) }` when `tryEnter()` says no,
/// and hands the turn on with `leave()`.
///
/// Both the device (`Authenticator`) and the platform (`UnixSocketTransport`) take turns
/// with it, so it lives in a module of its own rather than in either's vocabulary.
public struct TurnQueue {
    private var busy = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    public init() {}

    /// Takes the turn if it is free; otherwise returns false and the caller waits.
    public mutating func tryEnter() -> Bool {
        if busy { return false }
        busy = true
        return true
    }

    /// Queues a caller; it resumes holding the turn.
    public mutating func wait(_ continuation: CheckedContinuation<Void, Never>) {
        waiting.append(continuation)
    }

    /// Hands the turn to the next caller, or frees it.
    public mutating func leave() {
        if waiting.isEmpty { busy = false } else { waiting.removeFirst().resume() }
    }
}
