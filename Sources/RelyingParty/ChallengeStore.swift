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

    /// The most challenges pending at once; past it the oldest is forgotten.
    public let capacity: Int
    /// `issue` numbers each issue: it tells a challenge's current entry in `issued` from
    /// one left there by an earlier issue of the same challenge.
    private var pending: [[UInt8]: (ceremony: Ceremony, expires: ContinuousClock.Instant?, issue: Int)] = [:]
    /// Challenges in the order they were issued, with their issue numbers; entries whose
    /// challenge was taken stay until the next compaction.
    private var issued: [(challenge: [UInt8], issue: Int)] = []
    private var oldest = 0
    private var issues = 0

    /// An empty store holding at most `capacity` pending challenges (at least 1).
    public init(capacity: Int = 10_000) {
        self.capacity = max(1, capacity)
    }

    /// The challenges pending now.
    public var count: Int { pending.count }

    /// Entries kept to remember issue order, pending or already taken: at most `2 * capacity`.
    var retained: Int { issued.count - oldest }

    /// Records an issued challenge with the ceremony it belongs to; issuing the same challenge
    /// again replaces its ceremony.
    public func remember(_ challenge: [UInt8], for ceremony: Ceremony) {
        let expires = ceremony.timeout.map { ContinuousClock.now + $0 }
        if let current = pending[challenge] {
            pending[challenge] = (ceremony, expires, current.issue)
            return
        }
        while pending.count >= capacity, oldest < issued.count {
            let entry = issued[oldest]
            if pending[entry.challenge]?.issue == entry.issue { pending[entry.challenge] = nil }
            oldest += 1
        }
        issues += 1
        issued.append((challenge, issues))
        pending[challenge] = (ceremony, expires, issues)
        // Challenges taken promptly never make room by eviction; without this, their
        // entries would pile up for as long as the process runs. Keeping only the
        // current entries of pending challenges leaves at most `capacity`, so this
        // runs at most once per `capacity` issues.
        if issued.count - oldest > 2 * capacity {
            issued = issued[oldest...].filter { pending[$0.challenge]?.issue == $0.issue }
            oldest = 0
        } else if oldest > issued.count / 2 {
            issued.removeFirst(oldest)
            oldest = 0
        }
    }

    /// The ceremony the challenge was issued for, forgetting it; nil if unknown, already
    /// taken, or answered after the ceremony's timeout.
    public func take(_ challenge: [UInt8]) -> Ceremony? {
        guard let entry = pending.removeValue(forKey: challenge) else { return nil }
        if let expires = entry.expires, ContinuousClock.now > expires { return nil }
        return entry.ceremony
    }
}
