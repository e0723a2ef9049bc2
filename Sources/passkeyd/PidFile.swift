import Foundation

/// The `--pid-file`: written once the socket accepts connections, removed at exit.
struct PidFile {
    let path: String

    func write() throws {
        try "\(getpid())\n".write(toFile: path, atomically: true, encoding: .utf8)
    }

    func remove() {
        unlink(path)
    }
}
