import CTAPHID

/// How the daemon answers for the person (its `--presence`, `--uv` and whether prompts reach the
/// desktop), read from STATUS's `presence`, `uv` and `desktopPrompt` entries (`DaemonStatus`,
/// docs/vendor-commands.md); a daemon that does not report them leaves them unknown.
struct DaemonModes: Sendable, Equatable {
    var presence: String?
    var uv: String?
    var desktopPrompt: Bool?

    init(presence: String? = nil, uv: String? = nil, desktopPrompt: Bool? = nil) {
        self.presence = presence
        self.uv = uv
        self.desktopPrompt = desktopPrompt
    }

    /// The modes in a STATUS reply's bytes; unknown where the map does not say.
    init(statusReply bytes: [UInt8]) {
        let status = try? DaemonStatus(bytes: bytes)
        self.init(presence: status?.presence, uv: status?.uv, desktopPrompt: status?.desktopPrompt)
    }

    var isKnown: Bool { presence != nil }

    /// Nobody is asked: every request that needs presence is approved by the daemon itself, and UV
    /// (when it stands in for presence) too. Fine for tests; not for a person's everyday keys.
    var approvesOnItsOwn: Bool { presence == "auto" && uv != "prompt" }

    /// One line for `status` and `info`.
    var summary: String {
        guard let presence else { return "unknown (the daemon does not report them)" }
        var text = "presence \(presence), uv \(uv ?? "unknown")"
        if presence == "prompt" || uv == "prompt" {
            text +=
                desktopPrompt == true
                ? " (asked on the desktop and by passkeyctl approve)" : " (asked by passkeyctl approve)"
        } else if approvesOnItsOwn {
            text += " (every request approved without asking)"
        }
        return text
    }

    /// `info --json` / `status --json` members.
    var json: [(String, JSON)] {
        [("presence", .optional(presence)), ("uv", .optional(uv)), ("desktopPrompt", .optional(desktopPrompt))]
    }

    /// doctor's finding: a warning when the daemon approves every request on its own.
    var diagnosis: Diagnosis {
        guard isKnown else {
            return .note("modes", "the daemon does not report its --presence and --uv modes")
        }
        guard approvesOnItsOwn else { return .ok("modes", summary) }
        return .note(
            "modes", "\(summary): the daemon approves every request on its own",
            advice:
                "fine for tests; for everyday use run passkeyd --presence prompt (and --uv prompt, or a PIN), so you are asked (docs/everyday.md)"
        )
    }
}
