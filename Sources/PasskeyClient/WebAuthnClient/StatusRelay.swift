import CTAP

/// Hands the authenticator's keepalive statuses to the user agent one after another, in the
/// order they came: the transport reports them synchronously, from its own thread, and a
/// status shown late must not overwrite a newer one ("touch your authenticator" after the
/// touch). One task per client shows them; it ends when the last copy of the client is gone.
final class StatusRelay: Sendable {
    private let statuses: AsyncStream<KeepaliveStatus>.Continuation

    init(to userAgent: any UserAgent) {
        let (stream, statuses) = AsyncStream.makeStream(of: KeepaliveStatus.self)
        self.statuses = statuses
        Task {
            for await status in stream { await userAgent.show(status) }
        }
    }

    deinit { statuses.finish() }

    /// Queues `status` for the user agent; returns at once.
    func relay(_ status: KeepaliveStatus) {
        statuses.yield(status)
    }
}
