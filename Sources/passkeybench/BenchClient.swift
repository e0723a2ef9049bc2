import CTAP
import PasskeyClient

/// One platform connected to the authenticator: a session on its own transport.
/// `CTAPHID_ERR_CHANNEL_BUSY`, answered while another channel holds the device
/// (CTAP 2.1 §11.2.9), is retried by the transport itself, as a platform must.
struct BenchClient: Sendable {
    let session: CTAP2Session

    init(transport: any CTAPTransport) {
        session = CTAP2Session(transport: transport)
    }

    func getAssertion(_ request: GetAssertionRequest) async throws {
        _ = try await session.getAssertion(request)
    }

    func makeCredential(_ request: MakeCredentialRequest) async throws {
        _ = try await session.makeCredential(request)
    }
}
