import CTAP
import PasskeyClient

/// One platform connected to the authenticator: a session on its own transport, which
/// retries `CTAPHID_ERR_CHANNEL_BUSY` the way a platform must while another channel
/// holds the device (CTAP 2.1 §11.2.9).
struct BenchClient: Sendable {
    let session: CTAP2Session

    init(transport: any CTAPTransport) {
        session = CTAP2Session(transport: transport)
    }

    /// How long to wait before asking a busy device again: about a quarter of a socket transaction.
    static let busyBackoff: Duration = .milliseconds(1)
    static let channelBusy: UInt8 = 0x06

    /// Returns the number of busy answers retried.
    func getAssertion(_ request: GetAssertionRequest) async throws -> Int {
        try await retryingBusy { _ = try await session.getAssertion(request) }
    }

    func makeCredential(_ request: MakeCredentialRequest) async throws -> Int {
        try await retryingBusy { _ = try await session.makeCredential(request) }
    }

    private func retryingBusy(_ body: () async throws -> Void) async throws -> Int {
        var busy = 0
        while true {
            do {
                try await body()
                return busy
            } catch let error as CTAP2Error where error == .transport(.deviceError(Self.channelBusy)) {
                busy += 1
                try await Task.sleep(for: Self.busyBackoff)
            }
        }
    }
}
