/// AuthenticatorSelectionCriteria (WebAuthn L3 §5.4.4).
///
/// Unknown `authenticatorAttachment`, `residentKey` and `userVerification` strings decode as
/// absent, as the spec tells clients to ignore them.
public struct AuthenticatorSelectionCriteria: Sendable, Hashable, Codable {
    public var authenticatorAttachment: AuthenticatorAttachment?
    public var residentKey: ResidentKeyRequirement?
    /// Kept for WebAuthn Level 1 compatibility; `true` only when `residentKey` is `required`.
    public var requireResidentKey: Bool
    public var userVerification: UserVerificationRequirement

    public init(
        authenticatorAttachment: AuthenticatorAttachment? = nil,
        residentKey: ResidentKeyRequirement? = nil,
        requireResidentKey: Bool? = nil,
        userVerification: UserVerificationRequirement = .preferred
    ) {
        self.authenticatorAttachment = authenticatorAttachment
        self.residentKey = residentKey
        self.requireResidentKey = requireResidentKey ?? (residentKey == .required)
        self.userVerification = userVerification
    }

    /// The requirement in force: `residentKey` when known, else derived from
    /// `requireResidentKey` (WebAuthn L3 §5.4.4, `residentKey`).
    public var effectiveResidentKey: ResidentKeyRequirement {
        residentKey ?? (requireResidentKey ? .required : .discouraged)
    }

    enum CodingKeys: String, CodingKey {
        case authenticatorAttachment, residentKey, requireResidentKey, userVerification
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        authenticatorAttachment = try c.decodeKnown(AuthenticatorAttachment.self, forKey: .authenticatorAttachment)
        residentKey = try c.decodeKnown(ResidentKeyRequirement.self, forKey: .residentKey)
        requireResidentKey = try c.decodeIfPresent(Bool.self, forKey: .requireResidentKey) ?? false
        userVerification = try c.decodeKnown(UserVerificationRequirement.self, forKey: .userVerification) ?? .preferred
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encodeRawIfPresent(authenticatorAttachment, forKey: .authenticatorAttachment)
        try c.encodeRawIfPresent(residentKey, forKey: .residentKey)
        try c.encode(requireResidentKey, forKey: .requireResidentKey)
        try c.encode(userVerification.rawValue, forKey: .userVerification)
    }
}
