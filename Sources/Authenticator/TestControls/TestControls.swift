import CTAP
import Logging

/// The device's test controls in one place (docs/testing-your-relying-party.md): the faults
/// a test has armed and the watchers that see what the device does.
///
/// Nothing here is persisted: a restart disarms every fault and ends every watch. The spec
/// steps never look in here; they consult the `FiredFaults` value their transaction was given.
public actor TestControls {
    /// Events a watcher may fall behind by before the oldest undelivered ones are dropped
    /// (and counted): a slow watcher never slows the device.
    public static let watchBuffer = 256

    private struct Watcher {
        let continuation: AsyncStream<DeviceEvent>.Continuation
        var dropped = 0
    }

    private var rules: [FaultRule] = []
    private var watchers: [UInt64: Watcher] = [:]
    private var nextWatcher: UInt64 = 0
    /// Callers whose transaction a `drop` fault ended: the transport closes their connection.
    private var dropped: Set<CTAPCaller> = []
    private let logger: Logger

    public init(logger: Logger = Logger(label: "passkeyd.controls")) {
        self.logger = logger
    }

    // MARK: Faults

    /// Arms a rule; returns every armed rule, oldest first.
    @discardableResult
    public func arm(_ rule: FaultRule) -> [FaultRule] {
        rules.append(rule)
        logger.notice("fault armed", metadata: ["fault": "\(rule.summary)"])
        return rules
    }

    public var armed: [FaultRule] { rules }

    public func clear() {
        if !rules.isEmpty { logger.notice("faults cleared", metadata: ["count": "\(rules.count)"]) }
        rules = []
    }

    /// The faults a transaction for `rpID` meets: every matching rule fires once (and is used
    /// up after its count), is logged, and is seen by watchers.
    func fire(rpID: String?) -> FiredFaults {
        guard !rules.isEmpty else { return FiredFaults() }
        var fired: [Fault] = []
        rules = rules.compactMap { rule in
            guard rule.rpID == nil || rule.rpID == rpID else { return rule }
            fired.append(rule.fault)
            var rule = rule
            rule.remaining = rule.remaining.map { $0 - 1 }
            return rule.remaining == 0 ? nil : rule
        }
        for fault in fired {
            logger.notice("fault fired", metadata: ["fault": "\(fault.name)", "rp": "\(rpID ?? "-")"])
            record(DeviceEvent(kind: .faultFired, rpID: rpID, detail: fault.name))
        }
        return FiredFaults(fired)
    }

    func noteDrop(_ caller: CTAPCaller) {
        dropped.insert(caller)
    }

    /// Whether a `drop` fault ended this caller's transaction; asked once, by the transport.
    public func takeDrop(_ caller: CTAPCaller) -> Bool {
        dropped.remove(caller) != nil
    }

    // MARK: Events

    /// Tells every watcher. A watcher whose buffer is full misses the event; the next one it
    /// gets says how many it missed.
    public func record(_ event: DeviceEvent) {
        for (id, watcher) in watchers {
            var event = event
            event.dropped = watcher.dropped
            switch watcher.continuation.yield(event) {
            case .enqueued: watchers[id]?.dropped = 0
            case .dropped: watchers[id]?.dropped += 1
            case .terminated: watchers[id] = nil
            @unknown default: break
            }
        }
    }

    /// Whether anyone watches: events that cost work to describe are made only then.
    public var isWatched: Bool { !watchers.isEmpty }

    /// Events from now on until the stream's consumer goes away.
    public func watch() -> AsyncStream<DeviceEvent> {
        nextWatcher += 1
        let id = nextWatcher
        let (stream, continuation) = AsyncStream.makeStream(of: DeviceEvent.self, bufferingPolicy: .bufferingOldest(Self.watchBuffer))
        continuation.onTermination = { [weak self] _ in
            Task { await self?.unwatch(id) }
        }
        watchers[id] = Watcher(continuation: continuation)
        return stream
    }

    private func unwatch(_ id: UInt64) {
        watchers[id] = nil
    }
}
