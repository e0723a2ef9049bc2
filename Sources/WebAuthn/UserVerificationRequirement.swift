/// UserVerificationRequirement (WebAuthn L3 §5.8.6).
public enum UserVerificationRequirement: String, Sendable, Hashable, CaseIterable {
    case required
    case preferred
    case discouraged
}
