import Foundation

/// passkeyd's speed mechanisms, each of which can be turned off to take the plain path:
/// a bench and diagnosis switch (`make bench` measures each on and off in one run,
/// docs/benchmarks.md), read once from `PASSKEYD_SPEED_OFF` and never stored anywhere.
///
/// Off, each leaves every durability guarantee as it is (`Keystore`'s doc comment; the crash
/// tests run with each off):
/// - `recordLog`: a registration is committed into SQLite's WAL like any other write, instead
///   of appended to `keystore.log` and committed in folds.
/// - `groupCommit`: every write is flushed by its own caller while it holds the store, before
///   the call returns (a `save` too), instead of callers sharing a flush led off the store.
/// - `taskExecutor`: not the keystore's; passkeyd gives it to its server
///   (`CTAPHIDServer.Configuration.quickTransactionsOnLoop`): every transaction runs on the pool.
/// - `acceptThread`: not the keystore's either; passkeyd gives it to its server
///   (`CTAPHIDServer.Configuration.acceptThread`): connections are accepted through NIO's server
///   channel instead of passkeyd's own thread, and so are never busy-polled.
public struct SpeedMechanisms: OptionSet, Sendable, Hashable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let recordLog = SpeedMechanisms(rawValue: 1)
    public static let groupCommit = SpeedMechanisms(rawValue: 2)
    public static let taskExecutor = SpeedMechanisms(rawValue: 8)
    public static let acceptThread = SpeedMechanisms(rawValue: 16)

    /// The environment variable naming the mechanisms to turn off, comma-separated.
    public static let environmentVariable = "PASSKEYD_SPEED_OFF"

    /// Each mechanism's name in `PASSKEYD_SPEED_OFF`.
    public static let names: KeyValuePairs<String, SpeedMechanisms> = [
        "recordlog": .recordLog, "groupcommit": .groupCommit, "executor": .taskExecutor,
        "acceptthread": .acceptThread
    ]

    /// The mechanisms `PASSKEYD_SPEED_OFF` turns off, read once, at the first use. A name it
    /// does not know is logged and ignored: the switch is for measuring, never for correctness.
    public static let turnedOffByEnvironment: SpeedMechanisms = {
        let parsed = parse(ProcessInfo.processInfo.environment[environmentVariable] ?? "")
        if !parsed.unknown.isEmpty {
            Keystore.logger.warning(
                "\(environmentVariable) names no such mechanism: \(parsed.unknown.joined(separator: ", ")); it knows \(names.map(\.key).joined(separator: ", "))"
            )
        }
        if !parsed.off.isEmpty {
            Keystore.logger.notice("\(environmentVariable): speed mechanisms off: \(parsed.off.description)")
        }
        return parsed.off
    }()

    /// `text`'s comma-separated names: the mechanisms named, and the words that name none.
    public static func parse(_ text: String) -> (off: SpeedMechanisms, unknown: [String]) {
        var off: SpeedMechanisms = []
        var unknown: [String] = []
        for word in text.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces).lowercased() })
        where !word.isEmpty {
            if let mechanism = names.first(where: { $0.key == word })?.value {
                off.insert(mechanism)
            } else {
                unknown.append(word)
            }
        }
        return (off, unknown)
    }

    /// The names of the mechanisms in this set, comma-separated, as `PASSKEYD_SPEED_OFF` spells them.
    public var description: String {
        Self.names.filter { contains($0.value) }.map(\.key).joined(separator: ",")
    }
}
