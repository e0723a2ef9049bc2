import CTAP

extension Authenticator {
    /// The faults the running transaction met; the steps that sign, report flags or ask for
    /// presence consult them. Empty unless a test armed one.
    @TaskLocal static var faults = FiredFaults()

    /// Runs a transaction that makes a credential or an assertion under the faults armed for
    /// `rpID` (none for a command faults do not reach: nil). `status`, `latency` and `drop` act here, before the spec steps run; the rest
    /// change what the steps report.
    func underFaults<T: Sendable>(
        rpID: String?, caller: CTAPCaller,
        _ body: () async throws(CTAPStatus) -> T
    ) async throws(CTAPStatus) -> T {
        guard let rpID else { return try await body() }
        let fired = await controls.fire(rpID: rpID)
        if fired.isEmpty { return try await body() }
        if let latency = fired.latency {
            try? await Task.sleep(for: latency)
            if Task.isCancelled { throw .keepaliveCancel }
        }
        if fired.drops {
            // An unplug: volatile state is gone and the transport closes the connection unanswered.
            powerUp()
            await controls.noteDrop(caller)
            throw .other
        }
        if let status = fired.status { throw status }
        let result = await Self.$faults.withValue(fired) { () async -> Result<T, CTAPStatus> in
            do throws(CTAPStatus) { return .success(try await body()) } catch { return .failure(error) }
        }
        return try result.get()
    }
}
