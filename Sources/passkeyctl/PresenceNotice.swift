import CTAP
import PasskeyClient
import Synchronization

/// Tells the person once that the authenticator waits for presence (KEEPALIVE UPNEEDED, CTAP 2.1 §11.2.9.2.3).
final class PresenceNotice: Sendable {
    private let told = Atomic<Bool>(false)

    func heard(_ status: KeepaliveStatus) {
        guard status == .userPresenceNeeded,
            told.compareExchange(expected: false, desired: true, ordering: .relaxed).exchanged
        else {
            return
        }
        Output.error("Waiting for user presence: answer with `passkeyctl approve` or `passkeyctl deny`.")
    }
}
