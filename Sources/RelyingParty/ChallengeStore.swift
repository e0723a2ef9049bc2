import WebAuthn

/// The challenges a relying party has issued and not yet seen answered.
///
/// Each challenge is single use (WebAuthn L3 §13.4.3): `take` removes it whether or not the
/// response that carried it then verifies. A challenge is good only for its ceremony's
/// `timeout`; past `capacity` pending challenges, the oldest is forgotten.
public actor ChallengeStore {
    /// The ceremony a challenge was issued for, with the options the response is checked against.
    public enum Ceremony: Sendable, Hashable {
        case registration(PublicKeyCredentialCreationOptionsJSON)
        /// `user` is the account identified before the ceremony, if any (WebAuthn L3 §7.2 step 6).
        case authentication(PublicKeyCredentialRequestOptionsJSON, user: [UInt8]?)

        /// How long the client was told the ceremony may take.
        var timeout: Duration? {
            switch self {
            case .registration(let options): return options.timeout.map { .milliseconds(Int64($0)) }
            case .authentication(let options, _): return options.timeout.map { .milliseconds(Int64($0)) }
            }
        }
    }

    public let capacity: Int
    private var pending: [[UInt8]: (ceremony: Ceremony, expires: ContinuousClock.Instant?)] = [:]
    /// Challenges in the order they were issued; some may already be taken.
    private var issued: [[UInt8]] = []
    private var oldest = 0

    public init(capacity: Int = 10_000) {
        self.capacity = max(1, capacity)
    }

    public var count: Int { pending.count }

    public func remember(_ challenge: [UInt8], for ceremony: Ceremony) {
        if pending[challenge] == nil {
            while pending.count >= capacity, oldest < issued.count {
                pending[issued[oldest]] = nil
                oldest += 1
            }
            issued.append(challenge)
            if oldest > issued.count / 2 {
                issued.removeFirst(oldest)
                oldest = 0
            }
        }
        pending[challenge] = (ceremony, ceremony.timeout.map { ContinuousClock.now + $0 })
    }

    /// The ceremony the challenge was issued for, forgetting it; nil if unknown, already
    /// taken, or answered after the ceremony's timeout.
    public func take(_ challenge: [UInt8]) -> Ceremony? {
        guard let entry = pending.removeValue(forKey: challenge) else { return nil }
        if let expires = entry.expires, ContinuousClock.now > expires { return nil }
        return entry.ceremony
    }
}
