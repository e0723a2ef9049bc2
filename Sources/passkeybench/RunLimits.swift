/// When a figure stops: after `operations` in all, or after `duration`, whichever comes first.
/// Every figure is bounded both ways so `make bench` has a predictable length.
struct RunLimits: Sendable {
    var operations: Int
    var duration: Duration
    /// Untimed operations per client before the clock starts (connection set-up, caches).
    var warmup: Int = 5
}
