/// Destructive commands ask first on a terminal; elsewhere they need `--yes`.
enum Confirmation {
    static func require(yes: Bool, question: String) throws(Failure) {
        if yes { return }
        guard Terminal.isInteractive else {
            throw .usage("Refusing without confirmation: standard input is not a terminal. Pass --yes to go ahead.")
        }
        guard Terminal.confirm(question) else { throw .denied("Cancelled; nothing was changed.") }
    }
}
