import Authenticator
import CBOR
import CTAP
import Foundation

/// A credential's record read straight from its CBOR map, without `Codable`: every sign-in
/// opens one, and `RecordDecoder`'s containers, dynamic casts and metadata lookups were the
/// largest part of opening it (docs/benchmarks.md). Every registration writes one, so it is
/// written the same way (`record`), as the very map `RecordEncoder` makes of it.
///
/// It reads only the shape today's `RecordEncoder` writes: every member it knows, of the
/// type it is written as, and nothing else; an extension's member (`CredentialExtensionState`)
/// it reads as the extension's part declares it. Anything else (a member it does not know, which
/// a newer build or a field added to `CredentialSource` writes; a value of another type; a
/// backup state `BackupFlags` refuses) gives nil, and the caller decodes the record through
/// `Codable` as before, so the two paths never disagree on a record and a new field is never
/// dropped. `CredentialRecordTests` holds the member lists to the types' own (by reflection)
/// and the values to `RecordDecoder`'s.
extension CredentialSource {
    /// The members of `CredentialSource` this reader knows, by their coding names: its own, and
    /// the extensions' parts'.
    static let ownRecordMembers: Set<String> = [
        "id", "rp", "user", "algorithm", "privateKey", "signCount", "createdAt", "backup", "countsSignatures",
        "application"
    ]
    static let recordMembers = ownRecordMembers.union(CredentialExtensionState.recordMemberNames)
    static let rpRecordMembers: Set<String> = ["id", "name"]
    static let userRecordMembers: Set<String> = ["id", "name", "displayName"]
    static let backupRecordMembers: Set<String> = ["eligible", "backedUp"]

    init?(record: CBORValue) {
        guard case .map(let members) = record else { return nil }
        var id: [UInt8]?
        var rp: PublicKeyCredentialRpEntity?
        var user: PublicKeyCredentialUserEntity?
        var algorithm: COSEAlgorithm?
        var privateKey: [UInt8]?
        var signCount: UInt32?
        var createdAt: Date?
        var extensions = CredentialExtensionState.empty
        var backup: BackupFlags?
        var countsSignatures: Bool?
        var application: [UInt8]?
        // One pass over the map: no hashing of member names to look each one up.
        for (key, value) in members {
            guard case .textString(let name) = key else { return nil }
            switch name {
            case "id":
                guard let bytes = value.recordBytes else { return nil }
                id = bytes
            case "rp":
                guard let entity = PublicKeyCredentialRpEntity(record: value) else { return nil }
                rp = entity
            case "user":
                guard let entity = PublicKeyCredentialUserEntity(record: value) else { return nil }
                user = entity
            case "algorithm":
                guard let raw = try? Int(record: value), let known = COSEAlgorithm(rawValue: raw) else { return nil }
                algorithm = known
            case "privateKey":
                guard let bytes = value.recordBytes else { return nil }
                privateKey = bytes
            case "signCount":
                guard let count = try? UInt32(record: value) else { return nil }
                signCount = count
            // `Date`'s own coding: its interval since the reference date, as a `Double`.
            case "createdAt":
                guard let interval = try? Double(record: value) else { return nil }
                createdAt = Date(timeIntervalSinceReferenceDate: interval)
            // Optional members: null reads as absent, as `decodeIfPresent` has it.
            case "backup":
                if value == .null { continue }
                guard let flags = BackupFlags(record: value) else { return nil }
                backup = flags
            case "countsSignatures":
                guard let flag = value.optionalRecord(Bool.init(record:)) else { return nil }
                countsSignatures = flag
            case "application":
                if value == .null { continue }
                guard let bytes = value.recordBytes else { return nil }
                application = bytes
            // An extension's member, or one this reader does not know.
            default:
                guard extensions.readRecordMember(name, value) else { return nil }
            }
        }
        guard let id, let rp, let user, let algorithm, let privateKey, let signCount, let createdAt,
            extensions.hasEveryAlwaysRecordedPart
        else { return nil }
        self.init(
            id: id, rp: rp, user: user, algorithm: algorithm, privateKey: privateKey, signCount: signCount,
            createdAt: createdAt, extensions: extensions)
        self.backup = backup
        self.countsSignatures = countsSignatures
        self.application = application
    }
}

extension CredentialSource {
    /// The record `RecordEncoder` writes of this credential, built without `Codable`: member
    /// names as keys, absent optionals left out, scalars as `RecordScalar` writes them.
    /// `CredentialRecordTests` holds it to `RecordEncoder`'s bytes, and, through the member
    /// lists above, to the type's members.
    var record: CBORValue {
        var members: [CBORValue: CBORValue] = [
            "id": .byteString(id), "rp": rp.record, "user": user.record, "algorithm": algorithm.rawValue.recordValue,
            "privateKey": .byteString(privateKey), "signCount": signCount.recordValue,
            "createdAt": createdAt.timeIntervalSinceReferenceDate.recordValue
        ]
        for (name, value) in extensions.recordMembers { members[.textString(name)] = value }
        members["backup"] = backup.map { .map(["eligible": .boolean($0.eligible), "backedUp": .boolean($0.backedUp)]) }
        members["countsSignatures"] = countsSignatures.map(\.recordValue)
        members["application"] = application.map(CBORValue.byteString)
        return .map(members)
    }
}

extension PublicKeyCredentialRpEntity {
    fileprivate var record: CBORValue {
        var members: [CBORValue: CBORValue] = ["id": .textString(id)]
        members["name"] = name.map(CBORValue.textString)
        return .map(members)
    }

    fileprivate init?(record: CBORValue) {
        guard case .map(let members) = record else { return nil }
        var id: String?
        var name: String?
        for (key, value) in members {
            guard case .textString(let member) = key else { return nil }
            switch member {
            case "id":
                guard let text = try? String(record: value) else { return nil }
                id = text
            case "name":
                guard let text = value.optionalRecord(String.init(record:)) else { return nil }
                name = text
            default: return nil
            }
        }
        guard let id else { return nil }
        self.init(id: id, name: name)
    }
}

extension PublicKeyCredentialUserEntity {
    fileprivate var record: CBORValue {
        var members: [CBORValue: CBORValue] = ["id": .byteString(id)]
        members["name"] = name.map(CBORValue.textString)
        members["displayName"] = displayName.map(CBORValue.textString)
        return .map(members)
    }

    /// Without `validate()`: the `Codable` path reads a stored user entity without it too.
    fileprivate init?(record: CBORValue) {
        guard case .map(let members) = record else { return nil }
        var id: [UInt8]?
        var name: String?
        var displayName: String?
        for (key, value) in members {
            guard case .textString(let member) = key else { return nil }
            switch member {
            case "id":
                guard let bytes = value.recordBytes else { return nil }
                id = bytes
            case "name":
                guard let text = value.optionalRecord(String.init(record:)) else { return nil }
                name = text
            case "displayName":
                guard let text = value.optionalRecord(String.init(record:)) else { return nil }
                displayName = text
            default: return nil
            }
        }
        guard let id else { return nil }
        self.init(id: id, name: name, displayName: displayName)
    }
}

extension BackupFlags {
    /// Nil also for backed up but not eligible, which `BackupFlags` cannot hold but `Codable`
    /// reads: such a record takes the `Codable` path, so it opens exactly as before.
    fileprivate init?(record: CBORValue) {
        guard case .map(let members) = record, members.count == 2,
            let eligible = members[.textString("eligible")].flatMap({ try? Bool(record: $0) }),
            let backedUp = members[.textString("backedUp")].flatMap({ try? Bool(record: $0) })
        else { return nil }
        self.init(eligible: eligible, backedUp: backedUp)
    }
}

extension CBORValue {
    fileprivate var recordBytes: [UInt8]? {
        if case .byteString(let bytes) = self { return bytes }
        return nil
    }

    /// `.some(nil)` for null, `.some(value)` when `read` accepts it, nil when it does not.
    fileprivate func optionalRecord<T>(_ read: (CBORValue) throws -> T) -> T?? {
        if self == .null { return .some(nil) }
        return (try? read(self)).map { .some($0) }
    }
}
