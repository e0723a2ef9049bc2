import Logging

/// A command line is quiet unless asked: the library's logs reach standard error at `warning`
/// and above; `--verbose` adds what it did (`info`); `PASSKEYD_LOG_LEVEL` sets any level, as it
/// does for passkeyd (`--verbose` never makes that quieter).
enum CommandLog {
    static func bootstrap(arguments: [String], environment: [String: String]) {
        let verbose = arguments.contains("--verbose")
        let asked = environment["PASSKEYD_LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:))
        let level = verbose ? min(asked ?? .info, .info) : asked ?? .warning
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
    }
}
