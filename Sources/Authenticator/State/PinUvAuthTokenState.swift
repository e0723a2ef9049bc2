import CTAP
import Crypto

/// The pinUvAuthToken and its state (CTAP 2.1 §6.5.2.1, §6.5.2.2). One token serves
/// the whole device: a new one replaces the old, and power cycle and reset clear it.
struct PinUvAuthTokenState: Sendable {
    /// The token, 32 random bytes for both protocols.
    let key: SymmetricKey
    /// The protocol it was handed out under; a pinUvAuthParam under another cannot verify.
    let authProtocol: PinUvAuthProtocolVersion
    var permissions: PinUvAuthTokenPermissions
    /// The permissions RP ID: set with the token, or bound on first use by mc/ga (§6.5.5.7).
    var rpID: String?
    /// Handed out by the legacy getPinToken (§6.5.5.7.1), the only token a CTAP 2.0 or
    /// 2.1-PRE platform knows.
    let isLegacy: Bool
    /// Handed out for the PIN (§6.5.5.7.2 or the legacy getPinToken), not for built-in UV:
    /// once a PIN is set, only such a token releases private keys (docs/keystore.md).
    let isPINDerived: Bool
    /// userPresent / userVerified flags (§6.5.2.2).
    private var userPresent: Bool
    private var userVerified: Bool
    /// When beginUsingPinUvAuthToken started the usage timer.
    private let startedAt: ContinuousClock.Instant
    /// Whether the token has been used since it was handed out (initialUsageTimeLimit).
    private var used = false

    /// Time limits of the usage timer observer (§6.5.2.2 pinUvAuthTokenUsageTimerObserver).
    struct Limits: Sendable {
        /// A token not used within this long after it was handed out stops being usable.
        var initialUsage: Duration = .seconds(30)
        /// The userPresent flag lasts this long.
        var userPresent: Duration = .seconds(30)
        /// No token lives longer than this.
        var maxUsage: Duration = .seconds(600)
    }

    /// resetPinUvAuthToken() then beginUsingPinUvAuthToken(userIsPresent:) (§6.5.2.2):
    /// a fresh random token, in use from `now`, with the user verified.
    init(
        authProtocol: PinUvAuthProtocolVersion, permissions: PinUvAuthTokenPermissions, rpID: String?,
        userIsPresent: Bool, now: ContinuousClock.Instant, isLegacy: Bool = false, isPINDerived: Bool = false
    ) {
        key = SymmetricKey(size: .bits256)
        self.isLegacy = isLegacy
        self.isPINDerived = isPINDerived
        self.authProtocol = authProtocol
        self.permissions = permissions
        self.rpID = rpID
        userPresent = userIsPresent
        userVerified = true
        startedAt = now
    }

    /// The usage timer observer: whether the token is still in use at `now`.
    func isInUse(at now: ContinuousClock.Instant, limits: Limits) -> Bool {
        let age = now - startedAt
        if age > limits.maxUsage { return false }
        if !used, age > limits.initialUsage { return false }
        return true
    }

    /// getUserPresentFlagValue(): the flag, expiring after userPresentTimeLimit.
    func userPresentFlagValue(at now: ContinuousClock.Instant, limits: Limits) -> Bool {
        userPresent && now - startedAt <= limits.userPresent
    }

    /// getUserVerifiedFlagValue().
    var userVerifiedFlagValue: Bool { userVerified }

    mutating func markUsed() { used = true }

    /// clearUserPresentFlag(), clearUserVerifiedFlag() and
    /// clearPinUvAuthTokenPermissionsExceptLbw(): after an operation that collected
    /// presence, the token cannot authorise another (§6.1.2 step 14, §6.2.2 step 10).
    mutating func clearAfterUserPresence() {
        userPresent = false
        userVerified = false
        permissions = permissions.intersection(.largeBlobWrite)
    }

    /// The token encrypted to the platform's shared secret, as the subcommands return it.
    func encrypted(with sharedSecret: SymmetricKey) throws(CTAPStatus) -> [UInt8] {
        let bytes = key.withUnsafeBytes { Array($0) }
        return try authProtocol.implementation.encrypt(key: sharedSecret, plaintext: bytes)
    }
}
