/// A signature counter counted in memory below a durable high-water mark, so that an
/// assertion writes nothing (WebAuthn L3 §6.1.1 asks only that each count exceed every
/// earlier one; it need not grow by one).
///
/// What the store keeps for a counter (a credential's `signCount`, the device state's
/// `globalSignCount`) is a mark: no count above it has been used. The first count past the
/// mark moves the mark `size` ahead, durably, before that count signs anything; the counts
/// up to the new mark then come from memory. After a crash the store still holds the mark
/// and counting resumes above it, so a relying party never sees a count repeat or go back;
/// it may see a jump of up to `size`. PIN and UV retry counters are never leased: they must
/// be durable before each compare (CTAP 2.1 §6.5.2).
struct SignatureCounterLease: Sendable, Equatable {
    /// How far ahead a mark is moved: one durable write per this many assertions.
    static let size: UInt32 = 1024

    /// The last count used.
    private(set) var issued: UInt32
    /// The durable mark: every count up to it may be used without a write.
    private(set) var mark: UInt32

    /// The next count, and the mark to store before it is used when it passes the current
    /// one. `lease` is nil before this process first counted for the counter; `storedMark` is
    /// what the store holds (a store written before leases holds the last count itself,
    /// which is as good a mark).
    static func advance(_ lease: Self?, storedMark: UInt32) -> (count: UInt32, lease: Self, newMark: UInt32?) {
        let issued = lease?.issued ?? storedMark
        let count = issued &+ 1
        if let lease, count > issued, count <= lease.mark {
            return (count, Self(issued: count, mark: lease.mark), nil)
        }
        // A counter at UInt32.max wraps, as it did before leases; its mark saturates.
        let (ahead, overflow) = count.addingReportingOverflow(size - 1)
        let mark = overflow ? UInt32.max : ahead
        return (count, Self(issued: count, mark: mark), mark)
    }
}

/// The authenticator's leases: one per resident credential it has signed with since start,
/// and the device-global one of non-resident credentials.
struct SignatureCounterLeases: Sendable {
    /// Forgetting a lease is always safe (the next count stores a new mark above the old),
    /// so past this many the resident leases are dropped rather than grow without bound.
    static let residentLimit = 4096

    private(set) var resident: [[UInt8]: SignatureCounterLease] = [:]
    var global: SignatureCounterLease?

    mutating func keep(_ lease: SignatureCounterLease, for credentialID: [UInt8]) {
        if resident[credentialID] == nil, resident.count >= Self.residentLimit { resident.removeAll() }
        resident[credentialID] = lease
    }
}

extension Authenticator {
    /// At a clean shutdown the stored marks come down to the counts last used, so the next start
    /// counts on from them as a hardware key would, not from a leased mark up to 1023 ahead.
    /// Safe whenever it stops short: a mark left standing is still above every count used.
    public func settleSignatureCounters() async {
        let leases = counterLeases
        counterLeases = SignatureCounterLeases()
        for (id, lease) in leases.resident where lease.issued < lease.mark {
            do { try await store.updateSignCount(credentialID: id, to: lease.issued) } catch {
                logger.warning("a signature counter keeps its leased mark", metadata: ["error": "\(error)"])
            }
        }
        if let global = leases.global, global.issued < global.mark {
            do { try await updateDeviceState { $0.globalSignCount = global.issued } } catch {
                logger.warning("the global signature counter keeps its leased mark", metadata: ["error": "\(error)"])
            }
        }
    }
}
