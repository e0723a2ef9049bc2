/// One figure: how many operations completed in how long, and each one's latency.
struct Measurement: Sendable {
    var operations: Int
    var elapsed: Duration
    /// Per operation, from the request to the answer (the transport's busy retries included).
    var latencies: [Duration]
    /// Operations completed by each client: how evenly a contended device served them.
    var perClient: [Int]

    var seconds: Double { elapsed.seconds }
    var operationsPerSecond: Double { seconds > 0 ? Double(operations) / seconds : 0 }
    var p50: Duration { percentile(0.50) }
    var p99: Duration { percentile(0.99) }

    /// Nearest-rank percentile.
    func percentile(_ fraction: Double) -> Duration {
        guard !latencies.isEmpty else { return .zero }
        let sorted = latencies.sorted()
        let rank = Int((fraction * Double(sorted.count)).rounded(.up))
        return sorted[min(max(rank, 1), sorted.count) - 1]
    }
}

extension Measurement {
    /// Several runs of one figure as one: their operations over their summed time.
    init(pooling runs: [Measurement]) {
        let operations = runs.map(\.operations).reduce(0, +)
        self.init(
            operations: operations, elapsed: runs.map(\.elapsed).reduce(.zero, +),
            latencies: runs.flatMap(\.latencies), perClient: [operations])
    }
}

extension Duration {
    var seconds: Double {
        let (whole, attoseconds) = components
        return Double(whole) + Double(attoseconds) / 1e18
    }

    var milliseconds: Double { seconds * 1e3 }
}

/// A figure another program took and printed as JSON (Chrome's script, the libfido2
/// client): its operations, its wall time in seconds and each latency in milliseconds.
extension Measurement: Decodable {
    private enum CodingKeys: String, CodingKey {
        case operations, seconds, latencies
    }

    init(from decoder: any Decoder) throws {
        let reported = try decoder.container(keyedBy: CodingKeys.self)
        let operations = try reported.decode(Int.self, forKey: .operations)
        self.init(
            operations: operations,
            elapsed: .microseconds(Int64(try reported.decode(Double.self, forKey: .seconds) * 1e6)),
            latencies: try reported.decode([Double].self, forKey: .latencies).map { .nanoseconds(Int64($0 * 1e6)) },
            perClient: [operations])
    }
}
