import NIOCore

#if canImport(Glibc)
    import Glibc
#endif

/// Keeps an event loop polling its connections, not sleeping, for a short while after it
/// answers, so a peer's next request is read as it lands instead of after the loop's thread
/// has been woken.
///
/// A host sends its next request a few microseconds after reading an answer. If the loop
/// has gone to sleep meanwhile, the kernel must wake its thread, and on a virtual machine
/// waking an idle vCPU costs about 20 µs, more than passkeyd's own work for a sign-in
/// (docs/benchmarks.md, "Busy polling"). Linux's `net.core.busy_poll` and KVM's halt
/// polling make the same trade. Past the budget the loop sleeps again, so an idle daemon
/// costs nothing.
///
/// The polling runs as tasks on the loop, each a slice of at most `slice`, that `poll(2)`
/// the loop's connections without waiting. When one is readable (or hung up) the polling
/// stops and NIO's selector takes over, as it would have after waking. After each slice the
/// loop's thread yields its core (`sched_yield`) to any other runnable thread: on a machine
/// of two cores, a host that also polls for its answer holds the other one. Between slices NIO
/// runs whatever other tasks were queued (timers, replies written from other threads), but
/// not its selector: a channel on the same loop that this server did not accept (none in
/// passkeyd; a test's own client) waits until the polling ends.
/// Only answers written on the loop itself start polling: one written from elsewhere (a
/// command that runs on the pool) leaves the loop's core to the threads doing that work.
final class BusyPoll: Sendable {
    private struct State {
        var descriptors: [Int32] = []
        var until = NIODeadline.distantPast
        var polling = false
    }

    private static let slice = TimeAmount.microseconds(10)

    private let eventLoop: any EventLoop
    private let budget: TimeAmount
    private let state: NIOLoopBoundBox<State>

    private init(eventLoop: any EventLoop, budget: TimeAmount) {
        self.eventLoop = eventLoop
        self.budget = budget
        state = .makeBoxSendingValue(State(), eventLoop: eventLoop)
    }

    /// One for each loop of `group`, or none when `budget` is zero.
    static func forEachLoop(of group: any EventLoopGroup, budget: Duration) -> [ObjectIdentifier: BusyPoll] {
        guard budget > .zero else { return [:] }
        var polls: [ObjectIdentifier: BusyPoll] = [:]
        for loop in group.makeIterator() {
            polls[ObjectIdentifier(loop)] = BusyPoll(eventLoop: loop, budget: TimeAmount(budget))
        }
        return polls
    }

    /// Polls `descriptor` too, from now on. Call on the loop, before the connection is served.
    func watch(_ descriptor: Int32) {
        onLoop { $0.descriptors.append(descriptor) }
    }

    /// Stops polling `descriptor`. Call on the loop, before the connection's channel closes it.
    func unwatch(_ descriptor: Int32) {
        onLoop { $0.descriptors.removeAll { $0 == descriptor } }
    }

    /// Whether the loop is polling now. Read on the loop.
    var isPolling: Bool { state.value.polling }

    /// An answer went out on the loop: poll for the budget's length from now.
    func answered() {
        guard eventLoop.inEventLoop else { return }
        state.value.until = .now() + budget
        guard !state.value.polling, !state.value.descriptors.isEmpty else { return }
        state.value.polling = true
        eventLoop.execute { self.poll() }
    }

    private func poll() {
        guard !state.value.descriptors.isEmpty else {
            state.value.polling = false
            return
        }
        var watched = state.value.descriptors.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        let sliceEnd = NIODeadline.now() + Self.slice
        while Glibc.poll(&watched, nfds_t(watched.count), 0) == 0 {
            let now = NIODeadline.now()
            if now >= state.value.until { break }
            if now >= sliceEnd {
                sched_yield()
                eventLoop.execute { self.poll() }
                return
            }
        }
        state.value.polling = false
    }

    private func onLoop(_ body: @escaping @Sendable (inout State) -> Void) {
        if eventLoop.inEventLoop { body(&state.value) } else { eventLoop.execute { body(&self.state.value) } }
    }
}
