/// ResidentKeyRequirement (WebAuthn L3 §5.4.6): whether a client-side discoverable credential is wanted.
public enum ResidentKeyRequirement: String, Sendable, Hashable, CaseIterable {
    case discouraged
    case preferred
    case required
}
