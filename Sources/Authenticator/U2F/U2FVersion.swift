import CTAP

extension Authenticator {
    /// U2F_VERSION (FIDO U2F Raw Message Formats §6.1).
    func u2fVersion() -> U2FResponse {
        .version("U2F_V2")
    }
}
