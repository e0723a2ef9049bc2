import Foundation

/// The Public Suffix List (https://publicsuffix.org/list/), for telling a
/// registrable domain from a public suffix such as `co.uk` or `github.io`.
///
/// Both the ICANN and the private sections apply, as in browsers.
public struct PublicSuffixList: Sendable {
    /// Debian's `publicsuffix` package installs the list here.
    public static let systemPath = "/usr/share/publicsuffix/public_suffix_list.dat"

    private var rules: Set<String> = []
    private var wildcards: Set<String> = []
    private var exceptions: Set<String> = []

    /// Parses list text: one rule a line, `//` comments, `*.` wildcards, `!` exceptions.
    public init(listText: String) {
        for rawLine in listText.split(whereSeparator: \.isNewline) {
            let line = rawLine.split(whereSeparator: \.isWhitespace).first.map(String.init) ?? ""
            if line.isEmpty || line.hasPrefix("//") { continue }
            let rule = line.lowercased()
            if rule.hasPrefix("!") {
                exceptions.insert(String(rule.dropFirst()))
            } else if rule.hasPrefix("*.") {
                wildcards.insert(String(rule.dropFirst(2)))
            } else {
                rules.insert(rule)
            }
        }
    }

    /// Loads the system list; nil when the file is missing or unreadable.
    public static func system(path: String = systemPath) -> PublicSuffixList? {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        return PublicSuffixList(listText: text)
    }

    /// The public suffix of `host` by the list's algorithm: the longest matching rule,
    /// exceptions first, and `*` (the last label) when nothing matches.
    public func publicSuffix(of host: String) -> String {
        let labels = host.lowercased().split(separator: ".").map(String.init)
        guard !labels.isEmpty else { return host }
        for start in 0..<labels.count {
            let candidate = labels[start...].joined(separator: ".")
            if exceptions.contains(candidate) {
                return labels[(start + 1)...].joined(separator: ".")
            }
            if rules.contains(candidate) { return candidate }
            if start + 1 < labels.count, wildcards.contains(labels[(start + 1)...].joined(separator: ".")) {
                return candidate
            }
        }
        return labels[labels.count - 1]
    }

    /// Whether `host` is itself a public suffix (nobody can register under it as an RP).
    /// A fully qualified name's trailing dot names the same domain (RFC 1034 §3.1), so
    /// `co.uk.` is a public suffix as `co.uk` is.
    public func isPublicSuffix(_ host: String) -> Bool {
        let name = host.hasSuffix(".") ? String(host.dropLast()) : host
        return publicSuffix(of: name) == name.lowercased()
    }
}
