import Foundation

/// Why the benchmark could not run.
enum BenchError: Error, CustomStringConvertible {
    case daemonNotFound(path: String)
    case daemonDidNotStart(socket: String, log: String)
    case daemonExited(status: Int32, log: String)
    case cacheUnusable(directory: String, reason: String)
    case unexpectedLookup(population: Int, found: Int)
    case io(path: String, errno: Int32)
    case noPublicSuffixList

    var description: String {
        switch self {
        case .daemonNotFound(let path):
            return
                "no passkeyd executable at \(path) (build it with `swift build -c release --product passkeyd`, or pass --passkeyd)"
        case .daemonDidNotStart(let socket, let log):
            return "passkeyd did not answer on \(socket) in time; its log is \(log)"
        case .daemonExited(let status, let log):
            return "passkeyd exited with status \(status); its log is \(log)"
        case .cacheUnusable(let directory, let reason):
            return "the seeded keystore in \(directory) is unusable (\(reason)); delete it and run again"
        case .unexpectedLookup(let population, let found):
            return "the lookup among \(population) credentials found \(found) credentials, expected 1"
        case .noPublicSuffixList:
            return
                "the public suffix list is missing (install Debian's publicsuffix package): the WebAuthn figures need it"
        case .io(let path, let errno):
            return "\(path): \(String(cString: strerror(errno)))"
        }
    }
}
