import CTAP
import Foundation
import PasskeyClient
import WebAuthn

/// The files `passkeyctl export` writes and `import` reads (docs/testing-your-relying-party.md).
///
/// - `json`: an array with one object per credential, named as Chrome's virtual authenticator
///   names them (CDP `WebAuthn.Credential`, whose `largeBlob` is the blob uncompressed), plus
///   `algorithm`, `credProtect` and `createdAt`. Binary members are base64url; import also takes
///   standard base64, as CDP writes it.
/// - `cxf`: the FIDO Credential Exchange Format 1.0 (Proposed Standard, 2025-08-14): a header,
///   one account, one item per passkey, a large blob as `fido2Extensions.largeBlob`
///   (`uncompressedSize`, DEFLATE `data`). Its rules for counters apply: a passkey whose counter
///   is not 0 is left out of an export, and an imported passkey's counter stays 0.
enum CredentialFile {
    /// A credential as a file carries it: the record and its large blob (CTAP 2.1 §6.10.3),
    /// uncompressed.
    struct Entry {
        var record: CredentialRecord
        var largeBlob: [UInt8]?
    }

    enum Format: String, CaseIterable {
        case json, cxf
    }

    static func encode(_ entries: [Entry], format: Format) -> JSON {
        switch format {
        case .json: .array(entries.map(json))
        case .cxf: cxf(entries)
        }
    }

    /// Credentials to import, each with its private key in passkeyd's raw form; every entry is
    /// checked before any is returned, so a bad one stops the whole import.
    static func decode(_ data: Data, format: Format) throws(Failure) -> [Entry] {
        let value: Any
        do { value = try JSONSerialization.jsonObject(with: data) } catch {
            throw .usage("The file is not JSON: \(error.localizedDescription)")
        }
        let entries: [Entry]
        switch format {
        case .json:
            guard let items = value as? [[String: Any]] else {
                throw .usage("A json credential file is an array of objects.")
            }
            entries = try items.enumerated().map { (index, item) throws(Failure) in try record(json: item, at: index) }
        case .cxf:
            entries = try records(cxf: value)
        }
        var first: [[UInt8]: Int] = [:]
        for (index, entry) in entries.enumerated() {
            if let earlier = first[entry.record.id] {
                throw .usage(
                    "Credential \(index + 1) has the same credentialId as credential \(earlier + 1). Nothing was imported."
                )
            }
            first[entry.record.id] = index
        }
        return entries
    }

    /// Refuses entries whose credential ID the authenticator already holds for another account:
    /// the import would make two credentials of one ID. The same account's is replaced.
    static func checkAgainst(_ stored: [CredentialRecord], _ entries: [Entry]) throws(Failure) {
        let accounts = Dictionary(
            stored.map { ($0.id, ($0.rp.id, $0.user.id)) }, uniquingKeysWith: { first, _ in first })
        for (index, entry) in entries.enumerated() {
            if let account = accounts[entry.record.id], account != (entry.record.rp.id, entry.record.user.id) {
                throw .refused(
                    "Credential \(index + 1): this authenticator already holds its credentialId for another account. Nothing was imported."
                )
            }
        }
    }

    // MARK: json

    private static func json(_ entry: Entry) -> JSON {
        let record = entry.record
        var fields: [(String, JSON)] = [
            ("credentialId", .string(Base64URL.encode(record.id))),
            ("isResidentCredential", .bool(true)),
            ("rpId", .string(record.rp.id))
        ]
        if let key = record.privateKey, let pkcs8 = PrivateKeyEncoding.pkcs8(raw: key, algorithm: record.algorithm) {
            fields.append(("privateKey", .string(Base64URL.encode(pkcs8))))
        }
        fields += [
            ("userHandle", .string(Base64URL.encode(record.user.id))),
            ("signCount", .int(record.signCount ?? 0))
        ]
        if let blob = entry.largeBlob { fields.append(("largeBlob", .string(Base64URL.encode(blob)))) }
        fields += [
            ("backupEligibility", .bool(record.backupEligible ?? false)),
            ("backupState", .bool(record.backupState ?? false)),
            ("userName", .optional(record.user.name)),
            ("userDisplayName", .optional(record.user.displayName)),
            ("rpName", .optional(record.rp.name)),
            ("algorithm", .int(record.algorithm)),
            ("credProtect", .int(record.credProtect ?? 1)),
            ("createdAt", .optional(record.createdAt))
        ]
        return .object(fields)
    }

    private static func record(json item: [String: Any], at index: Int) throws(Failure) -> Entry {
        let what = "credential \(index + 1)"
        func string(_ key: String) -> String? { item[key] as? String }
        func int(_ key: String) -> Int? { (item[key] as? NSNumber)?.intValue }
        func bool(_ key: String) -> Bool? { (item[key] as? NSNumber)?.boolValue }
        if bool("isResidentCredential") == false {
            throw .usage(
                "\(what) is not discoverable (isResidentCredential false); passkeyd imports discoverable credentials only."
            )
        }
        guard let rpID = string("rpId") else { throw .usage("\(what) has no rpId.") }
        let id = try binary(string("credentialId"), "credentialId", what)
        let userHandle = try binary(string("userHandle"), "userHandle", what)
        guard item["privateKey"] != nil else {
            throw .usage(
                "\(what) has no privateKey: a file is importable only when `passkeyctl export --include-private-keys` wrote it (on a passkeyd started with --allow-private-key-export)."
            )
        }
        let pkcs8 = try binary(string("privateKey"), "privateKey", what)
        let algorithm = int("algorithm") ?? PrivateKeyEncoding.algorithm(ofPKCS8: pkcs8)
        guard let algorithm, let key = PrivateKeyEncoding.raw(pkcs8: pkcs8, algorithm: algorithm) else {
            throw .usage("\(what): privateKey is not a PKCS#8 key of an algorithm passkeyd supports.")
        }
        let largeBlob = try item["largeBlob"].map { value throws(Failure) in
            try binary(value as? String, "largeBlob", what, allowEmpty: true)
        }
        return Entry(
            record: CredentialRecord(
                id: id, rp: PublicKeyCredentialRpEntity(id: rpID, name: string("rpName")),
                user: PublicKeyCredentialUserEntity(
                    id: userHandle, name: string("userName"), displayName: string("userDisplayName")),
                algorithm: algorithm, signCount: int("signCount") ?? 0, privateKey: key,
                credProtect: int("credProtect"),
                backupEligible: bool("backupEligibility"), backupState: bool("backupState"), createdAt: int("createdAt")
            ),
            largeBlob: largeBlob)
    }

    // MARK: cxf

    private static func cxf(_ entries: [Entry]) -> JSON {
        let now = Int(Date().timeIntervalSince1970)
        let items: [JSON] = entries.map { entry in
            let record = entry.record
            let created = record.createdAt ?? now
            var passkey: [(String, JSON)] = [
                ("type", .string("passkey")),
                ("credentialId", .string(Base64URL.encode(record.id))),
                ("rpId", .string(record.rp.id)),
                ("username", .string(record.user.name ?? "")),
                ("userDisplayName", .string(record.user.displayName ?? "")),
                ("userHandle", .string(Base64URL.encode(record.user.id))),
                (
                    "key",
                    .string(
                        record.privateKey.flatMap { PrivateKeyEncoding.pkcs8(raw: $0, algorithm: record.algorithm) }
                            .map(Base64URL.encode) ?? "")
                )
            ]
            if let blob = entry.largeBlob {
                passkey.append(
                    (
                        "fido2Extensions",
                        .object([
                            (
                                "largeBlob",
                                .object([
                                    ("uncompressedSize", .int(blob.count)),
                                    ("data", .string(Base64URL.encode(LargeBlobCompression.deflate(blob))))
                                ])
                            )
                        ])
                    ))
            }
            return .object([
                ("id", .string(Base64URL.encode(Array(record.id.prefix(64))))),
                ("creationAt", .int(created)),
                ("modifiedAt", .int(created)),
                ("title", .string(record.rp.name ?? record.rp.id)),
                ("credentials", .array([.object(passkey)]))
            ])
        }
        return .object([
            ("version", .object([("major", .int(1)), ("minor", .int(0))])),
            ("exporterRpId", .string("passkeyd.localhost")),
            ("exporterDisplayName", .string("passkeyd")),
            ("timestamp", .int(now)),
            (
                "accounts",
                .array([
                    .object([
                        ("id", .string(Base64URL.encode((0..<16).map { _ in UInt8.random(in: 0...255) }))),
                        ("username", .string(NSUserName())),
                        ("email", .string("")),
                        ("items", .array(items))
                    ])
                ])
            )
        ])
    }

    private static func records(cxf value: Any) throws(Failure) -> [Entry] {
        guard let header = value as? [String: Any], let version = header["version"] as? [String: Any],
            (version["major"] as? NSNumber)?.intValue == 1
        else {
            throw .usage("A cxf file starts with a header of version 1 (Credential Exchange Format 1.0).")
        }
        var records: [Entry] = []
        for account in header["accounts"] as? [[String: Any]] ?? [] {
            for item in account["items"] as? [[String: Any]] ?? [] {
                for credential in item["credentials"] as? [[String: Any]] ?? []
                where credential["type"] as? String == "passkey" {
                    let what = "passkey \(records.count + 1)"
                    guard let rpID = credential["rpId"] as? String else { throw .usage("\(what) has no rpId.") }
                    let pkcs8 = try binary(credential["key"] as? String, "key", what)
                    guard let algorithm = PrivateKeyEncoding.algorithm(ofPKCS8: pkcs8),
                        let key = PrivateKeyEncoding.raw(pkcs8: pkcs8, algorithm: algorithm)
                    else {
                        throw .usage("\(what): key is not a PKCS#8 key of an algorithm passkeyd supports.")
                    }
                    let name = credential["username"] as? String
                    let displayName = credential["userDisplayName"] as? String
                    // CXF 1.0: an imported passkey's counter is 0 and is never incremented.
                    records.append(
                        Entry(
                            record: CredentialRecord(
                                id: try binary(credential["credentialId"] as? String, "credentialId", what),
                                rp: PublicKeyCredentialRpEntity(id: rpID),
                                user: PublicKeyCredentialUserEntity(
                                    id: try binary(credential["userHandle"] as? String, "userHandle", what),
                                    name: name?.isEmpty == false ? name : nil,
                                    displayName: displayName?.isEmpty == false ? displayName : nil),
                                algorithm: algorithm, signCount: 0, privateKey: key,
                                createdAt: (item["creationAt"] as? NSNumber)?.intValue, countsSignatures: false),
                            largeBlob: try largeBlob(cxf: credential, what)))
                }
            }
        }
        return records
    }

    /// A passkey's `fido2Extensions.largeBlob`, inflated; `size` is the name drafts before CXF 1.0 used.
    private static func largeBlob(cxf credential: [String: Any], _ what: String) throws(Failure) -> [UInt8]? {
        guard let member = (credential["fido2Extensions"] as? [String: Any])?["largeBlob"] else { return nil }
        guard let object = member as? [String: Any],
            let size = ((object["uncompressedSize"] ?? object["size"]) as? NSNumber)?.intValue, size >= 0
        else {
            throw .usage("\(what): fido2Extensions.largeBlob has no uncompressedSize.")
        }
        if let algorithm = object["alg"] as? String, algorithm != "deflate" {
            throw .usage(
                "\(what): fido2Extensions.largeBlob is compressed with \(algorithm); passkeyd reads deflate only.")
        }
        let compressed = try binary(object["data"] as? String, "fido2Extensions.largeBlob.data", what)
        guard let blob = LargeBlobCompression.inflate(compressed, size: size) else {
            throw .usage("\(what): fido2Extensions.largeBlob.data is not DEFLATE data of uncompressedSize bytes.")
        }
        return blob
    }

    /// base64url, or standard base64 (as CDP writes binary members), with or without padding.
    private static func binary(_ text: String?, _ member: String, _ what: String, allowEmpty: Bool = false)
        throws(Failure) -> [UInt8]
    {
        guard let text else { throw .usage("\(what) has no \(member).") }
        let urlSafe = text.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        guard let bytes = try? Base64URL.decode(urlSafe), allowEmpty || !bytes.isEmpty else {
            throw .usage("\(what): \(member) is not base64url.")
        }
        return bytes
    }
}
