/// passkeyctl's exit statuses, one per kind of outcome a script may act on (docs/passkeyctl.md).
enum ExitStatus: Int32, Sendable {
    case ok = 0
    /// Bad arguments, or a confirmation needed where no terminal can give it.
    case usage = 1
    /// Nothing listens on the socket.
    case noDaemon = 2
    /// Wrong PIN, or built-in verification did not match.
    case wrongPIN = 3
    /// PIN or UV blocked, for good or until a power cycle (replug).
    case pinBlocked = 4
    /// No such credential, an ambiguous prefix, or no pending prompt.
    case notFound = 5
    /// Someone said no: presence denied, confirmation declined, a prompt timed out or was cancelled.
    case denied = 6
    /// Any other error from the authenticator or the connection.
    case deviceError = 7
    /// Refused in the authenticator's current state: reset window closed, no PIN set, PIN already set, PIN policy.
    case refused = 8
}
