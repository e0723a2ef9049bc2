/// One CTAP transaction at a time (CTAP 2.1 §11.2.4: a transaction is a request and
/// its response), first come first served. Kept inside an actor, which waits with
/// `enter(_:)` and releases with `leave()`.
public struct TransactionQueue {
    private var busy = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    public init() {}

    /// Takes the transaction if it is free; otherwise returns false and the caller
    /// waits with `withCheckedContinuation { queue.wait($0) }`.
    public mutating func tryEnter() -> Bool {
        if busy { return false }
        busy = true
        return true
    }

    /// Queues a caller; it resumes holding the transaction.
    public mutating func wait(_ continuation: CheckedContinuation<Void, Never>) {
        waiting.append(continuation)
    }

    /// Hands the transaction to the next caller, or frees it.
    public mutating func leave() {
        if waiting.isEmpty { busy = false } else { waiting.removeFirst().resume() }
    }
}
