import CBOR

/// Random CBOR values within what CTAP2 carries: containers nested at most
/// `CBORDecoder.ctapNestingLimit` deep, integers biased to encoding-width boundaries,
/// text mixing 1- to 4-byte UTF-8 scalars and combining marks.
struct RandomCBOR {
    var rng: SplitMix64

    /// Arguments where the shortest head changes width, and their neighbours.
    static let boundaryArguments: [UInt64] = [
        0, 1, 23, 24, 25, 255, 256, 65535, 65536,
        0xFFFF_FFFF, 0x1_0000_0000, UInt64(Int64.max), UInt64(Int64.max) + 1, UInt64.max - 1, UInt64.max
    ]

    /// Scalars of every UTF-8 length, a combining acute accent, and a precomposed é,
    /// so canonically equivalent but byte-distinct strings occur.
    static let scalars: [Unicode.Scalar] = [
        "a", "z", "0", " ", "\u{7F}", "\u{E9}", "\u{301}", "\u{FC}", "\u{7FF}", "\u{800}",
        "\u{6C34}", "\u{FFFD}", "\u{FFFF}", "\u{10000}", "\u{10151}", "\u{1F600}", "\u{10FFFF}", "e"
    ]

    init(seed: UInt64) { rng = SplitMix64(seed: seed) }

    mutating func value(depth: Int = 0) -> CBORValue {
        let containersAllowed = depth < CBORDecoder.ctapNestingLimit
        switch Int.random(in: 0..<(containersAllowed ? 10 : 7), using: &rng) {
        case 0: return .unsigned(argument())
        case 1: return .negative(argument())
        case 2: return .byteString(bytes())
        case 3, 4: return .textString(text())
        case 5: return [.boolean(true), .boolean(false), .null, .undefined][Int.random(in: 0..<4, using: &rng)]
        case 6: return scalarKey()
        case 7: return .array((0..<count()).map { _ in value(depth: depth + 1) })
        default: return .map(map(depth: depth))
        }
    }

    /// A map whose keys are the scalar kinds CTAP uses as keys, values anything.
    mutating func map(depth: Int) -> [CBORValue: CBORValue] {
        var entries: [CBORValue: CBORValue] = [:]
        for _ in 0..<count() {
            entries[scalarKey()] = value(depth: depth + 1)
        }
        return entries
    }

    mutating func scalarKey() -> CBORValue {
        switch Int.random(in: 0..<5, using: &rng) {
        case 0: return .unsigned(argument())
        case 1: return .negative(argument())
        case 2: return .byteString(bytes())
        case 3: return .textString(text())
        default: return .boolean(Bool.random(using: &rng))
        }
    }

    mutating func argument() -> UInt64 {
        switch Int.random(in: 0..<4, using: &rng) {
        case 0: return Self.boundaryArguments.randomElement(using: &rng)!
        case 1: return UInt64.random(in: 0..<24, using: &rng)
        case 2: return UInt64.random(in: 0...0xFFFF, using: &rng)
        default: return rng.next() >> UInt64.random(in: 0..<64, using: &rng)
        }
    }

    mutating func count() -> Int {
        Int.random(in: 0...(Bool.random(using: &rng) ? 3 : 6), using: &rng)
    }

    mutating func bytes() -> [UInt8] {
        let length = [0, 1, 23, 24, 31, 255, 256].randomElement(using: &rng)!
        return (0..<length).map { _ in UInt8.random(in: 0...255, using: &rng) }
    }

    mutating func text() -> String {
        let length = [0, 1, 2, 5, 23, 24, 40].randomElement(using: &rng)!
        var scalars = String.UnicodeScalarView()
        for _ in 0..<length { scalars.append(Self.scalars.randomElement(using: &rng)!) }
        return String(scalars)
    }
}
