import CTAP

/// The faults one transaction met, as a value its steps consult: what they report, sign or
/// answer differs; what they store does not, but for a frozen counter, which does not advance.
struct FiredFaults: Sendable {
    private(set) var faults: [Fault]

    init(_ faults: [Fault] = []) {
        self.faults = faults
    }

    var isEmpty: Bool { faults.isEmpty }

    /// `status=NAME`: the command answers this instead of running.
    var status: CTAPStatus? {
        faults.lazy.compactMap { if case .status(let status) = $0 { status } else { nil } }.first
    }

    /// `latency=MS`: how long the answer waits.
    var latency: Duration? {
        let total = faults.reduce(0) { if case .latency(let ms) = $1 { $0 + ms } else { $0 } }
        return total > 0 ? .milliseconds(total) : nil
    }

    var deniesPresence: Bool { faults.contains(.deny) }
    /// `counter-freeze`: the counter stays where it is, so the assertion repeats the last count,
    /// however many transactions the fault holds for.
    var freezesCounter: Bool { faults.contains(.counterFreeze) }
    var drops: Bool { faults.contains(.drop) }

    /// The flags the authenticator data claims.
    func reported(_ flags: AuthenticatorData.Flags) -> AuthenticatorData.Flags {
        var flags = flags
        for fault in faults {
            switch fault {
            case .clearUP: flags.remove(.userPresent)
            case .clearUV: flags.remove(.userVerified)
            case .setUV: flags.insert(.userVerified)
            default: break
            }
        }
        return flags
    }

    /// The signature counter the authenticator data claims, given the true one (already advanced).
    func reported(signCount: UInt32) -> UInt32 {
        var count = signCount
        for fault in faults {
            switch fault {
            case .counterZero: count = 0
            case .counterRewind(let amount): count = count > amount ? count - amount : 0
            default: break
            }
        }
        return count
    }

    /// The signature sent: for `bogus-signature`, the true one with its last byte changed, so
    /// it keeps its encoding (DER stays DER) and no longer verifies.
    func reported(signature: [UInt8]) -> [UInt8] {
        guard faults.contains(.bogusSignature), !signature.isEmpty else { return signature }
        var signature = signature
        signature[signature.count - 1] ^= 0x5A
        return signature
    }
}
