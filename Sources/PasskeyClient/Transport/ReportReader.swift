import CTAPHID

/// The reports a connection has received, one at a time: the reader's side of
/// `ReportStreamHandler`, keeping the reports of a read that come after the message it
/// was reading for (a WATCH stream's next event) for the next read. A class: every read
/// on the connection shares what is left over; the transport's actor serialises them.
final class ReportReader {
    private var events: AsyncStream<ReportStreamHandler.Event>.Iterator
    private var batch: [UInt8] = []
    private var offset = 0

    init(_ stream: AsyncStream<ReportStreamHandler.Event>) {
        events = stream.makeAsyncIterator()
    }

    /// What `next` found.
    enum Item {
        case report(ArraySlice<UInt8>)
        /// `ReportStreamHandler`'s periodic wake-up: no report came meanwhile.
        case tick
    }

    /// The next report or tick; nil once the connection closed. Reports already received
    /// come without waiting.
    func next(isolation actor: isolated (any Actor)? = #isolation) async -> Item? {
        if offset < batch.count {
            defer { offset += CTAPHIDPacket.size }
            return .report(batch[offset..<offset + CTAPHIDPacket.size])
        }
        switch await events.next(isolation: actor) {
        case nil: return nil
        case .tick: return .tick
        case .reports(let reports):
            batch = reports
            offset = CTAPHIDPacket.size
            return .report(batch[0..<CTAPHIDPacket.size])
        }
    }
}
