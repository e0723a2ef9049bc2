import Foundation

/// A host's ASCII form, as browsers serialize it in an origin (URL Standard §3.5 "domain to
/// ASCII"): every label that is not ASCII becomes `xn--` and its Punycode (RFC 3492).
///
/// The UTS #46 mapping is approximated by NFKC and lowercasing, which covers the names people
/// type; a label that does not survive that (a lone combining mark, say) is refused as
/// browsers refuse it.
enum DomainToASCII {
    /// The ASCII host, or nil when a label cannot be encoded.
    static func convert(_ host: String) -> String? {
        if host.unicodeScalars.allSatisfy(\.isASCII) { return host.lowercased() }
        let mapped = host.precomposedStringWithCompatibilityMapping.lowercased()
        // URL Standard: U+3002, U+FF0E and U+FF61 separate labels as the full stop does.
        let labels = mapped.split(omittingEmptySubsequences: false) { "\u{3002}\u{FF0E}\u{FF61}.".contains($0) }
        var out: [String] = []
        for label in labels {
            if label.unicodeScalars.allSatisfy(\.isASCII) {
                out.append(String(label))
            } else {
                guard let encoded = Punycode.encode(String(label)) else { return nil }
                out.append("xn--" + encoded)
            }
        }
        return out.joined(separator: ".")
    }
}

/// Punycode (RFC 3492 §6.3): a Unicode label as the basic code points a DNS label may hold.
enum Punycode {
    // RFC 3492 §5 parameter values.
    private static let base = 36, tMin = 1, tMax = 26, skew = 38, damp = 700, initialBias = 72, initialN = 128

    /// RFC 3492 §6.3's encoding procedure; nil on overflow.
    static func encode(_ label: String) -> String? {
        let input = label.unicodeScalars.map { Int($0.value) }
        var output = input.filter { $0 < 0x80 }.map { UInt8($0) }
        let basicCount = output.count
        if basicCount > 0 { output.append(UInt8(ascii: "-")) }
        var n = initialN
        var delta = 0
        var bias = initialBias
        var handled = basicCount
        while handled < input.count {
            guard let m = input.filter({ $0 >= n }).min() else { return nil }
            let (step, overflow) = (m - n).multipliedReportingOverflow(by: handled + 1)
            guard !overflow, delta <= Int(Int32.max) - step else { return nil }
            delta += step
            n = m
            for c in input {
                if c < n { delta += 1 }
                guard c == n else { continue }
                var q = delta
                var k = base
                while true {
                    let t = k <= bias ? tMin : (k >= bias + tMax ? tMax : k - bias)
                    if q < t { break }
                    output.append(digit(t + (q - t) % (base - t)))
                    q = (q - t) / (base - t)
                    k += base
                }
                output.append(digit(q))
                bias = adapt(delta, handled + 1, first: handled == basicCount)
                delta = 0
                handled += 1
            }
            delta += 1
            n += 1
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// 0–25 are a–z, 26–35 are 0–9 (RFC 3492 §5).
    private static func digit(_ d: Int) -> UInt8 {
        d < 26 ? UInt8(d) + UInt8(ascii: "a") : UInt8(d - 26) + UInt8(ascii: "0")
    }

    /// RFC 3492 §6.1's bias adaptation.
    private static func adapt(_ delta: Int, _ count: Int, first: Bool) -> Int {
        var delta = first ? delta / damp : delta / 2
        delta += delta / count
        var k = 0
        while delta > ((base - tMin) * tMax) / 2 {
            delta /= base - tMin
            k += base
        }
        return k + (base - tMin + 1) * delta / (delta + skew)
    }
}
