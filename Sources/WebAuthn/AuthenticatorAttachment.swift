/// AuthenticatorAttachment (WebAuthn L3 §5.4.5).
public enum AuthenticatorAttachment: String, Sendable, Hashable, CaseIterable {
    case platform
    case crossPlatform = "cross-platform"
}
