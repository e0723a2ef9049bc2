import ArgumentParser
import CTAP
import Foundation
import PasskeydLocal

/// Options every command takes, before or after the command's name.
struct GlobalOptions: ParsableArguments {
    @Option(help: "passkeyd's socket (default $PASSKEYD_SOCKET, else passkeyd's default path).")
    var socket: String?

    @Flag(help: "Write results and errors as JSON on standard output.")
    var json = false

    @Option(
        name: .customLong("pin-file"),
        help: "Read the PIN from this file (trailing newline ignored); else $PASSKEYCTL_PIN, else a prompt.")
    var pinFile: String?

    /// No `-v`: base64url credential IDs may begin with `-`, and `delete` takes any word it does
    /// not know as one; a short flag would be read out of such an ID ("-Xv…").
    @Flag(name: .long, help: "Log what the library does (info) on standard error; PASSKEYD_LOG_LEVEL sets any level.")
    var verbose = false

    /// The socket after the environment has filled the gap.
    var socketPath: String {
        socket ?? PasskeydSocket.defaultPath()
    }

    func connect() -> Connection {
        Connection(socket: socketPath)
    }
}
