import WebAuthn

extension WebAuthnClient {
    /// The default ceremony timeout when the RP gives none (WebAuthn L3 §15.1 recommends 300 s).
    static let defaultTimeoutMilliseconds: UInt32 = 300_000

    /// Runs a ceremony under its timeout (WebAuthn L3 §5.1.3 step 11): on expiry the work is
    /// cancelled, which cancels any request on the device, and the ceremony fails with
    /// NotAllowedError. Cancelling the calling task fails it with AbortError.
    func withCeremonyTimeout<T: Sendable>(
        _ milliseconds: UInt32?, rpID: String,
        _ body: @escaping @Sendable () async throws(WebAuthnError) -> T
    ) async throws(WebAuthnError) -> T {
        let limit = Duration.milliseconds(Int64(milliseconds ?? Self.defaultTimeoutMilliseconds))
        let outcome: Result<T, WebAuthnError> = await withTaskGroup(of: Result<T, WebAuthnError>?.self) { group in
            group.addTask {
                do throws(WebAuthnError) { return .success(try await body()) } catch { return .failure(error) }
            }
            group.addTask {
                try? await Task.sleep(for: limit)
                return Task.isCancelled ? nil : .failure(.notAllowed("The request timed out."))
            }
            var result: Result<T, WebAuthnError> = .failure(.abort("The request was cancelled."))
            for await next in group {
                guard let next else { continue }
                result = next
                break
            }
            group.cancelAll()
            return result
        }
        if Task.isCancelled, case .failure(let error) = outcome, error.name != .abort {
            throw .abort("The request was cancelled. You can try again.", cause: error.cause)
        }
        return try outcome.get()
    }
}
