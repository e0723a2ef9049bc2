import PasskeydMacros

/// Why the authenticator asks the user for something, so a prompt can say so.
@MemberwiseInit
public struct UserActionRequest: Sendable, Hashable {
    public enum Purpose: String, Sendable {
        case makeCredential, getAssertion, credentialExcluded, reset, selection, credentialManagement
        /// Built-in user verification for a pinUvAuthToken (CTAP 2.1 §6.5.5.7.3).
        case pinUvAuthToken
        /// A sample for a fingerprint being enrolled (CTAP 2.1 §6.7.4).
        case fingerprintSample
    }

    public var purpose: Purpose
    /// The relying party concerned, when there is one.
    public var rpID: String?
    /// The account concerned, when the request names one (a registration's user, or the one
    /// credential that can answer a sign-in): a prompt names it, so a person can refuse a
    /// request they did not start.
    public var account: String?
}

/// The answer to a request for a touch (CTAP 2.1 §6: user presence).
public enum PresenceOutcome: Sendable, Equatable {
    case approved
    /// The user refused: `CTAP2_ERR_OPERATION_DENIED`.
    case denied
    /// Nobody answered in time: `CTAP2_ERR_USER_ACTION_TIMEOUT`.
    case timedOut
    /// The host cancelled the request: `CTAP2_ERR_KEEPALIVE_CANCEL`.
    case cancelled
}

/// Tests whether a person is there (a touch on a hardware key). The daemon
/// provides one driven by its `--presence` mode; tests provide scripted ones.
public protocol UserPresence: Sendable {
    /// Waits for the user's answer. Must return `.cancelled` promptly when the
    /// calling task is cancelled. Runs on the caller's executor (the authenticator's) unless
    /// the conformer is isolated elsewhere: an answer known at once (the daemon's `auto` and
    /// `deny` modes, every sign-in of a benchmark) then costs no executor switch away and back,
    /// which in the daemon are two jobs through the event loop's queue.
    nonisolated(nonsending) func confirmPresence(_ request: UserActionRequest) async -> PresenceOutcome
}

/// The answer to a built-in user verification attempt (a simulated fingerprint).
public enum VerificationOutcome: Sendable, Equatable {
    case verified
    /// A failed match: uvRetries goes down (CTAP 2.1 §6.5.5.7.3).
    case failed
    case timedOut
    case cancelled
}

/// Built-in user verification (CTAP 2.1 §6.5.5.7.3 and the `uv` option).
public protocol UserVerifier: Sendable {
    /// Whether built-in UV is configured; getInfo's `uv` option reports it.
    var isConfigured: Bool { get }
    /// Verifies the user; verification implies presence.
    func verifyUser(_ request: UserActionRequest) async -> VerificationOutcome
}
