/// The host's end of the port the extension opened with `connectNative`: host messages out,
/// framed, one at a time.
struct BrowserPort: Sendable {
    let writer: NativeMessaging.Writer

    /// Sends a message. One the browser would refuse (over 1 MiB: a large blob, say) is replaced
    /// by an error for the same request, so the page hears why instead of waiting forever.
    func send(_ message: HostMessage) {
        let body = message.json
        if body.count > NativeMessaging.outboundLimit, case .result(let id, _) = message {
            writer.write(
                HostMessage.error(
                    id: id, name: "NotSupportedError",
                    message:
                        "The answer is \(body.count) bytes, more than the 1 MiB a browser takes from a native host.",
                    unavailable: false
                ).json)
            return
        }
        writer.write(body)
    }
}
