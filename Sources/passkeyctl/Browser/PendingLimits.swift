/// How many requests one browser port keeps pending, so that one page cannot take the host (and
/// through it passkeyd) for everyone (issue 40, item 5). A request past a limit is answered
/// NotAllowedError at once, as a browser refuses a request it will not start; the others go on.
///
/// Three limits, since the port is shared by every tab of the browser: one frame may have a few
/// requests pending (a conditional request and a modal one, say; Chromium keeps one per frame), one
/// top-level site a few frames' worth (a page cannot multiply itself with frames), and the port
/// enough for many tabs at once. A flooding tab therefore uses up its own share only.
enum PendingLimits {
    /// Requests one frame may have pending.
    static let perFrame = 4
    /// Requests all frames of one top-level origin (one site's tabs and their frames) may have pending.
    static let perTopOrigin = 8
    /// Requests the port may have pending.
    static let perPort = 32

    /// Whom a request counts against.
    struct Owner: Sendable, Hashable {
        /// The frame: the extension's request ids are `<frame serial>:<the page's id>`
        /// (docs/browser-protocol.md), so the part before the last colon names the frame.
        let frame: String
        let topOrigin: String

        init(_ request: BrowserRequest) {
            let id = request.id ?? ""
            frame = id.lastIndex(of: ":").map { String(id[..<$0]) } ?? id
            switch request {
            case .create(let caller, _), .get(let caller, _, _), .capabilities(let caller), .signal(let caller, _):
                topOrigin = caller.topOrigin
            case .ping, .abort, .choice:
                topOrigin = ""
            }
        }
    }

    /// The sentence refusing a request from `owner` while `pending` are pending; nil to start it.
    static func refusal(for owner: Owner, pending: some Sequence<Owner>) -> String? {
        var (port, site, frame) = (0, 0, 0)
        for other in pending {
            port += 1
            if other.topOrigin == owner.topOrigin { site += 1 }
            if other.frame == owner.frame { frame += 1 }
        }
        if frame >= perFrame {
            return "Too many pending requests: this frame already has \(frame) passkey requests waiting."
        }
        if site >= perTopOrigin {
            return "Too many pending requests: this site already has \(site) passkey requests waiting."
        }
        if port >= perPort {
            return "Too many pending requests: the browser already has \(port) passkey requests waiting."
        }
        return nil
    }
}
