/// AttestationConveyancePreference (WebAuthn L3 §5.4.7).
public enum AttestationConveyancePreference: String, Sendable, Hashable, CaseIterable {
    case none
    case indirect
    case direct
    case enterprise
}
