import CTAP
import WebAuthn

/// How the authenticator is attached to this client (WebAuthn L3 §5.4.5, §6.2.1), taken from what
/// it reports of itself: getInfo's `transports` (CTAP 2.1 §6.4) containing `internal` means a
/// platform authenticator, part of the device the client runs on; any other is cross-platform and
/// is reached over the transports it lists.
struct Attachment: Sendable, Equatable {
    let attachment: AuthenticatorAttachment
    /// What the credential's `getTransports()` reports (§5.2.1): `["internal"]` for a platform
    /// authenticator, else the authenticator's own list.
    let transports: [String]
    /// Whether it can verify the user itself (getInfo option `uv`): with `platform`, a
    /// user-verifying platform authenticator (§5.1.7, isUserVerifyingPlatformAuthenticatorAvailable).
    let verifiesUsers: Bool
    /// Whether it stores discoverable credentials (getInfo option `rk`).
    let storesPasskeys: Bool

    init(_ info: GetInfoResponse) {
        let platform = info.transports.contains("internal")
        attachment = platform ? .platform : .crossPlatform
        transports = platform ? ["internal"] : info.transports
        verifiesUsers = info.options["uv"] == true
        storesPasskeys = info.options["rk"] == true
    }

    /// isUserVerifyingPlatformAuthenticatorAvailable() (§5.1.7).
    var isUserVerifyingPlatformAuthenticator: Bool { attachment == .platform && verifiesUsers }

    /// getClientCapabilities' passkeyPlatformAuthenticator (§5.1.7.1): a user-verifying platform
    /// authenticator that keeps discoverable credentials.
    var isPasskeyPlatformAuthenticator: Bool { isUserVerifyingPlatformAuthenticator && storesPasskeys }
}
