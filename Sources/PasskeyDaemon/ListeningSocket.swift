/// Where the server's listening socket comes from.
public enum ListeningSocket: Sendable, Equatable {
    /// passkeyd binds the socket path itself, and removes the file when it stops.
    case bind
    /// A socket already bound to the path and listening, handed over by a service manager
    /// (systemd socket activation). The file stays the manager's: it is neither replaced at
    /// start nor removed at stop, so the next connection can start passkeyd again.
    case inherited(descriptor: Int32)
}
