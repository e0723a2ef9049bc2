/// What makeCredential's attestation statement proves (`passkeyd --attestation`).
public enum AttestationMode: String, Sendable, CaseIterable {
    /// No statement (`none`), whatever the platform asks.
    case none
    /// `packed` self attestation: signed by the credential's own key (WebAuthn L3 §8.2, no x5c).
    case selfAttestation = "self"
    /// `packed` basic attestation: signed by an attestation key whose certificate chains to
    /// the keystore's test root CA (`passkeyctl attestation-ca`), as a vendor's key would.
    case x5c
}
