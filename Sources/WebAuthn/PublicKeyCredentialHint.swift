/// PublicKeyCredentialHint (WebAuthn L3 §5.8.7): the RP's hints to the client's UI.
public enum PublicKeyCredentialHint: String, Sendable, Hashable, CaseIterable {
    case securityKey = "security-key"
    case clientDevice = "client-device"
    case hybrid
}
