/// Runs one operation repeatedly from `clients` concurrent tasks and records each
/// latency.
enum Sampler {
    static func measure(
        clients: Int = 1, limits: RunLimits, threads: [ClientThread]? = nil,
        _ operation: @escaping @Sendable (_ client: Int) async throws -> Void
    ) async throws -> Measurement {
        for client in 0..<clients {
            try await withTaskExecutorPreference(threads?[client]) {
                for _ in 0..<limits.warmup { try await operation(client) }
            }
        }
        let clock = ContinuousClock()
        let start = clock.now
        let deadline = start + limits.duration
        let share = max(1, limits.operations / clients)
        let perClient = try await withThrowingTaskGroup(of: Measurement.self) { group in
            for client in 0..<clients {
                group.addTask(executorPreference: threads?[client]) {
                    var latencies: [Duration] = []
                    latencies.reserveCapacity(share)
                    while latencies.count < share, clock.now < deadline {
                        let began = clock.now
                        try await operation(client)
                        latencies.append(clock.now - began)
                    }
                    return Measurement(
                        operations: latencies.count, elapsed: .zero, latencies: latencies, perClient: [latencies.count])
                }
            }
            var all: [Measurement] = []
            for try await result in group { all.append(result) }
            return all
        }
        let elapsed = clock.now - start
        return Measurement(
            operations: perClient.reduce(0) { $0 + $1.operations }, elapsed: elapsed,
            latencies: perClient.flatMap(\.latencies), perClient: perClient.flatMap(\.perClient))
    }
}
