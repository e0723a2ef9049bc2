import CTAP
import Logging
import Synchronization

/// The device's test controls in one place (docs/testing-your-relying-party.md): the faults
/// a test has armed, the watchers that see what the device does, and the run-time settings
/// of Chrome's virtual authenticator vocabulary (`ControlSettings`: user verification,
/// automatic presence, response override bits, the next conditional answer).
///
/// Nothing here is persisted: a restart disarms every fault, ends every watch and puts every
/// setting back to what the flags say. The spec steps never look in here; they consult the
/// `FiredFaults` value their transaction was given, and presence and UV are asked through
/// `ControlledUserPresence` / `ControlledUserVerifier`.
public actor TestControls {
    /// Events a watcher may fall behind by before the oldest undelivered ones are dropped
    /// (and counted): a slow watcher never slows the device.
    public static let watchBuffer = 256

    private struct Watcher {
        let continuation: AsyncStream<DeviceEvent>.Continuation
        var dropped = 0
    }

    private var rules: [FaultRule] = [] { didSet { publishActivity() } }
    /// `setResponseOverrideBits`: faults that fire for every transaction until changed.
    private var overrides = ResponseOverrides() { didSet { publishActivity() } }
    private var conditional: ConditionalAnswer?
    /// The user-action overrides, read by every presence and UV request without a hop to
    /// this actor: bits 0–1 UV (0 as configured, 1 verified, 2 fails), bits 2–3 presence (0 as
    /// configured, 1 automatic, 2 waits for PRESENCE). Written only inside the actor.
    private let userActions = Atomic<UInt8>(0)
    private var watchers: [UInt64: Watcher] = [:] { didSet { publishActivity() } }
    private var nextWatcher: UInt64 = 0
    /// Callers whose transaction a `drop` fault ended: the transport closes their connection.
    private var dropped: Set<CTAPCaller> = [] { didSet { publishActivity() } }
    /// Whether rules are armed, watchers subscribed, drops untold: a copy of the three
    /// properties above, so every transaction can skip the controls without a hop to this
    /// actor when a test uses none (the common case). One atomic word and not a lock: it is
    /// written only here, inside the actor, after the state it mirrors, and a reader that
    /// sees a stale value sees the state of a moment earlier, as if it had run first.
    private let activity = Atomic<Activity>(Activity())
    private let logger: Logger
    /// Whether the credential test controls (passkeydExport, Import, CredentialFlags, Delete)
    /// take a request without a pinUvAuthParam (`passkeyd --open-test-controls`): for a
    /// throw-away daemon in a test suite, where no PIN is set and UV may be off or failing on
    /// purpose. A flag of the run, never a setting a command can change; private keys still
    /// leave only under `--allow-private-key-export`, and with a PIN set only for its token.
    public nonisolated let admitsTokenlessCredentialControls: Bool

    public init(logger: Logger = Logger(label: "passkeyd.controls"), admitsTokenlessCredentialControls: Bool = false) {
        self.logger = logger
        self.admitsTokenlessCredentialControls = admitsTokenlessCredentialControls
    }

    /// The bits of `activity`.
    struct Activity: OptionSet, AtomicRepresentable, Sendable {
        let rawValue: UInt8
        static let armed = Activity(rawValue: 1 << 0)
        static let watched = Activity(rawValue: 1 << 1)
        static let dropping = Activity(rawValue: 1 << 2)
    }

    private func publishActivity() {
        var now: Activity = []
        if !rules.isEmpty || !overrides.faults.isEmpty { now.insert(.armed) }
        if !watchers.isEmpty { now.insert(.watched) }
        if !dropped.isEmpty { now.insert(.dropping) }
        activity.store(now, ordering: .releasing)
    }

    private nonisolated func isActive(_ bit: Activity) -> Bool {
        activity.load(ordering: .acquiring).contains(bit)
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
    /// `nonsending`, like `takeDrop` and `announce`: with nothing armed it answers on the caller's
    /// executor. A plain `nonisolated async` function would leave the caller's actor and come
    /// back, two executor switches, each a job through the event loop's queue for a task that
    /// prefers it (the runtime takes no thread over for such a task).
    nonisolated(nonsending) func fire(rpID: String?) async -> FiredFaults {
        guard isActive(.armed) else { return FiredFaults() }
        return await fireArmed(rpID: rpID)
    }

    private func fireArmed(rpID: String?) -> FiredFaults {
        // Override bits are settings, not events: they fire silently for every transaction.
        var fired: [Fault] = overrides.faults
        guard !rules.isEmpty else { return FiredFaults(fired) }
        rules = rules.compactMap { rule in
            guard rule.rpID == nil || rule.rpID == rpID else { return rule }
            fired.append(rule.fault)
            var rule = rule
            rule.remaining = rule.remaining.map { $0 - 1 }
            return rule.remaining == 0 ? nil : rule
        }
        for fault in fired.dropFirst(overrides.faults.count) {
            logger.notice("fault fired", metadata: ["fault": "\(fault.name)", "rp": "\(rpID ?? "-")"])
            record(DeviceEvent(kind: .faultFired, rpID: rpID, detail: fault.name))
        }
        return FiredFaults(fired)
    }

    func noteDrop(_ caller: CTAPCaller) {
        dropped.insert(caller)
    }

    /// Whether a `drop` fault ended this caller's transaction; asked once, by the transport.
    public nonisolated(nonsending) func takeDrop(_ caller: CTAPCaller) async -> Bool {
        guard isActive(.dropping) else { return false }
        return await takeNotedDrop(caller)
    }

    private func takeNotedDrop(_ caller: CTAPCaller) -> Bool {
        dropped.remove(caller) != nil
    }

    // MARK: Run-time settings

    /// The settings as they are.
    public var settings: ControlSettings {
        let bits = userActions.load(ordering: .relaxed)
        return ControlSettings(
            userVerified: Self.override(bits & 0b11), automaticPresence: Self.override(bits >> 2 & 0b11),
            responseOverrides: overrides, conditional: conditional)
    }

    /// Changes what `change` names (nil members stay as they are); returns the settings afterwards.
    @discardableResult
    public func apply(_ change: ControlSettings, clearConditional: Bool = false) -> ControlSettings {
        var bits = userActions.load(ordering: .relaxed)
        if let verified = change.userVerified { bits = bits & ~0b11 | (verified ? 1 : 2) }
        if let automatic = change.automaticPresence { bits = bits & ~0b1100 | (automatic ? 1 : 2) << 2 }
        userActions.store(bits, ordering: .releasing)
        if let bits = change.responseOverrides { overrides = bits }
        if clearConditional { conditional = nil }
        if let answer = change.conditional { conditional = answer }
        let now = settings
        logger.notice("test controls changed", metadata: ["settings": "\(Self.summary(now))"])
        return now
    }

    /// Every setting back to what the flags say.
    public func resetSettings() {
        userActions.store(0, ordering: .releasing)
        overrides = ResponseOverrides()
        conditional = nil
        logger.notice("test controls reset")
    }

    /// The conditional answer for `rpID`, once; nil when none was set for that RP.
    public func takeConditional(rpID: String) -> ConditionalAnswer? {
        guard let answer = conditional, answer.rpID == rpID else { return nil }
        conditional = nil
        logger.notice("conditional request answered by the test control", metadata: ["rp": "\(rpID)"])
        return answer
    }

    /// UV's override: nil as configured, true verified, false fails.
    public nonisolated var userVerifiedOverride: Bool? {
        Self.override(userActions.load(ordering: .acquiring) & 0b11)
    }

    /// Presence's override: nil as configured, true approved at once, false waits for PRESENCE.
    public nonisolated var automaticPresenceOverride: Bool? {
        Self.override(userActions.load(ordering: .acquiring) >> 2 & 0b11)
    }

    private static func override(_ bits: UInt8) -> Bool? {
        switch bits {
        case 1: true
        case 2: false
        default: nil
        }
    }

    /// One line for the log; no credential IDs.
    private static func summary(_ settings: ControlSettings) -> String {
        let uv = settings.userVerified.map { $0 ? "verified" : "fails" } ?? "as configured"
        let presence = settings.automaticPresence.map { $0 ? "automatic" : "waits" } ?? "as configured"
        let bits = settings.responseOverrides?.faults.map(\.name).joined(separator: ",") ?? ""
        return "uv=\(uv) presence=\(presence) overrides=[\(bits)] conditional=\(settings.conditional != nil)"
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

    /// Tells every watcher, if anyone watches: the event is described only then, and
    /// nobody waits for this actor when nobody does.
    public nonisolated(nonsending) func announce(_ event: @autoclosure () -> DeviceEvent?) async {
        guard isActive(.watched), let event = event() else { return }
        await record(event)
    }

    /// Events from now on until the stream's consumer goes away.
    public func watch() -> AsyncStream<DeviceEvent> {
        nextWatcher += 1
        let id = nextWatcher
        let (stream, continuation) = AsyncStream.makeStream(
            of: DeviceEvent.self, bufferingPolicy: .bufferingOldest(Self.watchBuffer))
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
