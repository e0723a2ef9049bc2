import CTAP

/// Why a `CredentialStore` did not do what was asked, and what the host is told.
public enum CredentialStoreError: Error, Sendable {
    /// `capacity` credentials are stored and the save replaces none, or the disk has no
    /// room left: `CTAP2_ERR_KEY_STORE_FULL` (CTAP 2.1 §6.1.2 step 17).
    case full
    /// An `updateDeviceState` change refused itself with this status.
    case refused(CTAPStatus)
    /// Reading or writing failed. The cause is for the log, never for the host, who is
    /// told `CTAP1_ERR_OTHER`.
    case failed(any Error & Sendable)

    /// The status the authenticator answers with.
    public var status: CTAPStatus {
        switch self {
        case .full: .keyStoreFull
        case .refused(let status): status
        case .failed: .other
        }
    }
}
