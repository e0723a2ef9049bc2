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

    /// Parses list text: one rule a line, read up to its first whitespace (the list's format,
    /// https://github.com/publicsuffix/list/wiki/Format), `//` comments, `*.` wildcards,
    /// `!` exceptions.
    ///
    /// The browser host parses Debian's 14 000 lines each time a browser starts it, before its
    /// first answer: ASCII lines (all but a few hundred) are read as bytes, and only a line with
    /// other characters goes through `Character`'s Unicode rules (its newlines and whitespace),
    /// which read the whole list at ten times the cost, and is filed in its ASCII form.
    public init(listText: String) {
        var text = listText
        text.withUTF8 { bytes in
            var lineStart = 0
            while lineStart < bytes.count {
                var lineEnd = lineStart
                var ascii = true
                while lineEnd < bytes.count, !Self.isASCIINewline(bytes[lineEnd]) {
                    ascii = ascii && bytes[lineEnd] < 0x80
                    lineEnd += 1
                }
                let line = UnsafeBufferPointer(rebasing: bytes[lineStart..<lineEnd])
                if ascii {
                    let token = line.drop(while: Self.isASCIIBlank).prefix { !Self.isASCIIBlank($0) }
                    let comment = token.starts(with: [0x2F, 0x2F])  // "//": most of the list's lines
                    if !token.isEmpty, !comment {
                        insert(
                            String(unsafeUninitializedCapacity: token.count) { lowered in
                                for (index, byte) in token.enumerated() { lowered[index] = Self.asciiLowercased(byte) }
                                return token.count
                            })
                    }
                } else {
                    for unicodeLine in String(decoding: line, as: UTF8.self).split(whereSeparator: \.isNewline) {
                        insertInASCII(unicodeLine.split(whereSeparator: \.isWhitespace).first.map(String.init) ?? "")
                    }
                }
                lineStart = lineEnd + 1
            }
        }
    }

    /// One line's rule, lowercased and in ASCII (both callers have set blank lines and comments
    /// aside), filed by its kind.
    private mutating func insert(_ rule: String) {
        if rule.hasPrefix("!") {
            exceptions.insert(String(rule.dropFirst()))
        } else if rule.hasPrefix("*.") {
            wildcards.insert(String(rule.dropFirst(2)))
        } else {
            rules.insert(rule)
        }
    }

    /// A rule written in Unicode (`公司.cn`), filed in its ASCII form (`xn--55qx5d.cn`): origins'
    /// hosts and RP IDs reach the list serialized so (URL Standard §3.5), and Chromium files the
    /// list's IDN rules the same way; filed as written, no such rule would ever match.
    private mutating func insertInASCII(_ rule: String) {
        if rule.isEmpty || rule.hasPrefix("//") { return }
        let marker = rule.hasPrefix("!") ? "!" : rule.hasPrefix("*.") ? "*." : ""
        guard let ascii = DomainToASCII.convert(String(rule.dropFirst(marker.count))) else { return }
        insert(marker + ascii)
    }

    /// The ASCII characters `Character.isWhitespace` counts within a line: space and tab.
    private static func isASCIIBlank(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 }

    /// The ASCII characters `Character.isNewline` counts: LF, VT, FF and CR.
    private static func isASCIINewline(_ byte: UInt8) -> Bool { (0x0A...0x0D).contains(byte) }

    private static func asciiLowercased(_ byte: UInt8) -> UInt8 { (0x41...0x5A).contains(byte) ? byte | 0x20 : byte }

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
