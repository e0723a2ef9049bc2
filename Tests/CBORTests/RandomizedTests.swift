import CBOR
import Testing

/// Seeded, bounded randomized checks: random values survive encode→decode, and random
/// byte mutations of valid messages only ever decode or throw a `CBORError`.
@Suite("Randomized round-trip and mutation")
struct RandomizedTests {
    @Test("Random values encode, decode equal, and re-encode to the same bytes", arguments: [1, 2, 3, 4] as [UInt64])
    func roundTrip(_ seed: UInt64) throws {
        var random = RandomCBOR(seed: seed)
        var failures: [String] = []
        for _ in 0..<1_500 {
            let value = random.value()
            let bytes = value.encoded
            do {
                let decoded = try CBORDecoder.decode(bytes)
                if decoded != value || decoded.encoded != bytes {
                    failures.append("mismatch for \(Hex.string(bytes))")
                }
                // A canonical item followed by other bytes: decodePrefix takes exactly the item.
                let prefix = try CBORDecoder.decodePrefix(bytes + [0xFF, 0x00])
                if prefix.length != bytes.count || prefix.value != value {
                    failures.append("prefix length \(prefix.length) != \(bytes.count) for \(Hex.string(bytes))")
                }
            } catch {
                failures.append("\(error) for \(Hex.string(bytes))")
            }
        }
        #expect(failures.isEmpty, "\(failures.count) failures, first: \(failures.first ?? "")")
    }

    /// Messages shaped like what a host and an authenticator exchange (CTAP 2.1 §6),
    /// several at the full four levels of nesting.
    static let ctapMessages: [CBORValue] = {
        let hash = CBORValue.byteString(Array(0..<32))
        let coseKey: CBORValue = [
            1: 2, 3: -25, -1: 1, -2: .byteString(Array(repeating: 1, count: 32)),
            -3: .byteString(Array(repeating: 2, count: 32))
        ]
        let makeCredential: CBORValue = [
            1: hash,
            2: ["id": "example.com", "name": "Example"],
            3: ["id": .byteString(Array(repeating: 9, count: 16)), "name": "alice", "displayName": "Alice"],
            4: [["alg": -7, "type": "public-key"], ["alg": -8, "type": "public-key"]],
            5: [
                [
                    "id": .byteString(Array(repeating: 3, count: 64)), "type": "public-key",
                    "transports": ["usb", "internal"]
                ]
            ],
            6: ["hmac-secret": true, "credProtect": 2],
            7: ["rk": true],
            8: .byteString(Array(repeating: 4, count: 16)),
            9: 2
        ]
        let getAssertion: CBORValue = [
            1: "example.com",
            2: hash,
            4: [
                "hmac-secret": [
                    1: coseKey, 2: .byteString(Array(repeating: 5, count: 32)),
                    3: .byteString(Array(repeating: 6, count: 16)), 4: 2
                ]
            ],
            5: ["up": false]
        ]
        let getInfo: CBORValue = [
            1: ["FIDO_2_0", "FIDO_2_1"], 2: ["credProtect", "hmac-secret"],
            3: .byteString(Array(repeating: 0, count: 16)),
            4: ["rk": true, "up": true, "plat": false, "clientPin": true], 5: 1200, 6: [2, 1],
            10: [["alg": -7, "type": "public-key"]]
        ]
        let attestation: CBORValue = [
            1: "packed", 2: .byteString(Array(repeating: 7, count: 37)),
            3: [
                "alg": -7, "sig": .byteString(Array(repeating: 8, count: 70)),
                "x5c": [.byteString(Array(repeating: 9, count: 300))]
            ]
        ]
        let clientPIN: CBORValue = [
            1: 2, 2: 2, 3: coseKey, 4: .byteString(Array(repeating: 1, count: 16)),
            6: .byteString(Array(repeating: 2, count: 64))
        ]
        return [makeCredential, getAssertion, getInfo, attestation, clientPIN]
    }()

    /// Head bytes that matter to a strict decoder: width changes, reserved and
    /// indefinite additional info, huge length prefixes, floats, tags, breaks.
    static let interestingBytes: [UInt8] = [
        0x00, 0x17, 0x18, 0x19, 0x1A, 0x1B, 0x1C, 0x1F, 0x3B, 0x5B, 0x5F, 0x7B, 0x7F,
        0x81, 0x9B, 0x9F, 0xA1, 0xBB, 0xBF, 0xC0, 0xF4, 0xF6, 0xF8, 0xF9, 0xFB, 0xFF
    ]

    static func mutate(_ bytes: inout [UInt8], using rng: inout SplitMix64) {
        for _ in 0..<Int.random(in: 1...4, using: &rng) {
            guard !bytes.isEmpty else {
                bytes.append(UInt8.random(in: 0...255, using: &rng))
                continue
            }
            let at = Int.random(in: 0..<bytes.count, using: &rng)
            switch Int.random(in: 0..<8, using: &rng) {
            case 0: bytes[at] = UInt8.random(in: 0...255, using: &rng)
            case 1: bytes[at] ^= 1 << UInt8.random(in: 0..<8, using: &rng)
            case 2: bytes[at] = interestingBytes.randomElement(using: &rng)!
            case 3: bytes.insert(UInt8.random(in: 0...255, using: &rng), at: at)
            case 4: bytes.remove(at: at)
            case 5: bytes.removeSubrange(at...)
            case 6:
                let end = min(bytes.count, at + Int.random(in: 1...16, using: &rng))
                bytes.insert(contentsOf: bytes[at..<end], at: Int.random(in: 0...bytes.count, using: &rng))
            default:
                // A length argument of all ones after this byte.
                for i in (at + 1)..<min(bytes.count, at + 9) { bytes[i] = 0xFF }
            }
        }
    }

    @Test("40,000 random mutations of valid messages decode or throw CBORError, never trap")
    func mutationsNeverTrap() {
        var rng = SplitMix64(seed: 0xF1D0_2026)
        var random = RandomCBOR(seed: 0xBADC_0FFE)
        let corpus = Self.ctapMessages.map(\.encoded) + (0..<27).map { _ in random.value().encoded }
        var accepted = 0
        var rejected: [CBORError: Int] = [:]
        var failures: [String] = []
        for round in 0..<40_000 {
            var bytes = corpus[round % corpus.count]
            Self.mutate(&bytes, using: &rng)
            do {
                let value = try CBORDecoder.decode(bytes)
                accepted += 1
                // Whatever was accepted is a value the codec can carry: its canonical form
                // is never longer than the input and decodes to the same value.
                let canonical = value.encoded
                if canonical.count > bytes.count || (try? CBORDecoder.decode(canonical)) != value {
                    failures.append("accepted \(Hex.string(bytes)) re-encodes inconsistently")
                }
            } catch {
                rejected[error, default: 0] += 1
            }
            if let (value, length) = try? CBORDecoder.decodePrefix(bytes) {
                if length > bytes.count || (try? CBORDecoder.decode(Array(bytes[..<length]))) != value {
                    failures.append("decodePrefix of \(Hex.string(bytes)) reported \(length)")
                }
            }
        }
        #expect(failures.isEmpty, "\(failures.count) failures, first: \(failures.first ?? "")")
        // The mutations reach both outcomes and most rejection paths, so the test exercises the decoder deeply.
        #expect(accepted > 1_000)
        #expect(rejected.values.reduce(0, +) > 20_000)
        #expect(rejected.count >= 8, "rejections seen: \(rejected)")
    }
}
