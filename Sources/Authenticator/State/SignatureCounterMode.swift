/// How signature counters advance (WebAuthn L3 §6.1.1).
public enum SignatureCounterMode: String, Sendable, CaseIterable {
    /// Each discoverable credential counts on its own; non-resident ones share the device's counter.
    case perCredential = "per-credential"
    /// One counter for every credential of the device.
    case global
    /// Always 0: how synced passkeys report, telling the RP there is no counter to check.
    case zero
}
