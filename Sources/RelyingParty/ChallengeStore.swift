import WebAuthn

/// The challenges a relying party has issued and not yet seen answered.
///
/// Each challenge is single use (WebAuthn L3 §13.4.3): `take` removes it whether or not the
/// response that carried it then verifies. Past `capacity` pending challenges, the oldest is forgotten.
public actor ChallengeStore {
    /// The ceremony a challenge was issued for, with the options the response is checked against.
    public enum Ceremony: Sendable, Hashable {
        case registration(PublicKeyCredentialCreationOptionsJSON)
        /// `user` is the account identified before the ceremony, if any (WebAuthn L3 §7.2 step 6).
        case authentication(PublicKeyCredentialRequestOptionsJSON, user: [UInt8]?)
    }

    public let capacity: Int
    private var pending: [[UInt8]: (ceremony: Ceremony, serial: UInt64)] = [:]
    private var nextSerial: UInt64 = 0

    public init(capacity: Int = 10_000) {
        self.capacity = max(1, capacity)
    }

    public var count: Int { pending.count }

    public func remember(_ challenge: [UInt8], for ceremony: Ceremony) {
        if pending[challenge] == nil, pending.count >= capacity,
           let oldest = pending.min(by: { $0.value.serial < $1.value.serial })?.key {
            pending[oldest] = nil
        }
        pending[challenge] = (ceremony, nextSerial)
        nextSerial += 1
    }

    /// The ceremony the challenge was issued for, forgetting it; nil if unknown or already taken.
    public func take(_ challenge: [UInt8]) -> Ceremony? {
        pending.removeValue(forKey: challenge)?.ceremony
    }
}
