import Logging
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// How many connections passkeyd serves at once, so that no client can spend the process's file
/// descriptors (issue 40, item 5: a page's thousand requests once exhausted a 1 024-descriptor
/// limit, and every other client failed while the accept loop logged EMFILE ~96 times a second).
///
/// At start the soft RLIMIT_NOFILE is raised to the hard limit (setrlimit(2): an unprivileged
/// process may raise its soft limit up to the hard one), and the cap leaves `reserve` descriptors
/// for everything that is not a connection (the listener, the lock, the store's files, NIO's
/// selectors). A connection past the cap is closed at once, unread, and the refusals are logged
/// at most once a second with their count, as are accept failures for want of descriptors.
final class ConnectionLimit: Sendable {
    /// Descriptors kept for what is not a connection.
    static let reserve = 64
    /// The most connections served whatever the descriptor limit: far more than any desktop's
    /// clients, and a bound on the memory their buffers take.
    static let ceiling = 4096

    /// The connections served at once at most.
    let maximum: Int
    private let open = Atomic<Int>(0)
    private let logger: Logger
    private let quiet = Mutex<Quiet>(Quiet())

    /// What was not logged yet, so a flood costs one log line a second.
    private struct Quiet {
        var lastLogged: ContinuousClock.Instant?
        var refused = 0
        var failedAccepts = 0
        var lastErrno: Int32 = 0
    }

    init(maximum: Int, logger: Logger) {
        self.maximum = max(1, maximum)
        self.logger = logger
    }

    /// The limit for this process: `configured`, else what the descriptor limit allows once
    /// its soft value has been raised to the hard one.
    static func forThisProcess(configured: Int?, logger: Logger) -> ConnectionLimit {
        let descriptors = raiseDescriptorLimit(logger: logger)
        let derived = descriptors.map { min(ceiling, Int(clamping: $0) - reserve) } ?? ceiling
        let limit = ConnectionLimit(maximum: configured ?? derived, logger: logger)
        logger.info(
            "connections capped",
            metadata: ["limit": "\(limit.maximum)", "descriptors": "\(descriptors.map(String.init) ?? "unlimited")"])
        return limit
    }

    /// Raises the soft RLIMIT_NOFILE to the hard limit; returns the soft limit in force (nil: unlimited).
    static func raiseDescriptorLimit(logger: Logger) -> UInt64? {
        var limit = rlimit()
        let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
        guard getrlimit(resource, &limit) == 0 else { return nil }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(resource, &raised) == 0 {
                limit = raised
            } else {
                logger.notice(
                    "cannot raise the descriptor limit", metadata: ["soft": "\(limit.rlim_cur)", "errno": "\(errno)"])
            }
        }
        return limit.rlim_cur == rlim_t.max ? nil : UInt64(limit.rlim_cur)  // RLIM_INFINITY
    }

    /// Takes a place for a new connection; false when all are taken (the caller closes it).
    func admit() -> Bool {
        var current = open.load(ordering: .relaxed)
        while current < maximum {
            let (exchanged, original) = open.compareExchange(
                expected: current, desired: current + 1, ordering: .acquiringAndReleasing)
            if exchanged { return true }
            current = original
        }
        note { $0.refused += 1 }
        return false
    }

    /// Gives a connection's place back once it is closed.
    func leave() {
        open.subtract(1, ordering: .acquiringAndReleasing)
    }

    /// The connections being served now.
    var current: Int { open.load(ordering: .relaxed) }

    /// accept(2) failed for want of descriptors or memory: counted, logged at most once a second.
    func acceptFailed(errno code: Int32) {
        note {
            $0.failedAccepts += 1
            $0.lastErrno = code
        }
    }

    /// Counts an event and logs what was counted when the last line is a second old.
    private func note(_ count: (inout Quiet) -> Void) {
        let now = ContinuousClock.now
        let due: Quiet? = quiet.withLock { quiet in
            count(&quiet)
            if let last = quiet.lastLogged, now - last < .seconds(1) { return nil }
            let report = quiet
            quiet = Quiet(lastLogged: now)
            return report
        }
        guard let due else { return }
        if due.refused > 0 {
            logger.warning(
                "refusing connections: the limit is reached",
                metadata: ["limit": "\(maximum)", "refused": "\(due.refused)"])
        }
        if due.failedAccepts > 0 {
            logger.warning(
                "cannot accept connections: out of descriptors",
                metadata: ["failures": "\(due.failedAccepts)", "errno": "\(due.lastErrno)"])
        }
    }
}
