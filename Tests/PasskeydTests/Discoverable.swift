import CTAP
import PasskeyClient
import PasskeydTestSupport

extension PasskeydProcess {
    /// The IDs of every discoverable credential the daemon holds for `rp`: a getAssertion
    /// without an allow list, then getNextAssertion for the rest (CTAP 2.1 §6.2.2, §6.3).
    func discoverableCredentials(rp: String) async throws -> Set<[UInt8]> {
        try await withSession { session in
            let request = GetAssertionRequest(rpID: rp, clientDataHash: [UInt8](repeating: 7, count: 32))
            return Set(try await session.getAllAssertions(request).map(\.credential.id))
        }
    }
}
