/// A command's plain success: a sentence, or `{"ok": true, "message": ...}` under `--json`.
enum Report {
    static func done(json: Bool, _ message: String, _ extra: [(String, JSON)] = []) {
        if json {
            Output.json(.object([("ok", .bool(true)), ("message", .string(message))] + extra))
        } else {
            print(message)
        }
    }
}
