import Authenticator
import CBOR
import CTAP
import Crypto
import Foundation

/// A credential as stored: its keyed hashes and the AES-256-GCM sealed record.
struct CredentialRow: Sendable, Equatable {
    var credentialIDHash: Data
    var rpIDHash: Data
    var userHandleHash: Data
    var sealed: Data
}

/// Seals and opens records. A record is a version byte and the encoding it names of the
/// `Codable` value (`RecordEncoding`: fields added to `CredentialSource` are kept without a
/// format change), sealed with AES-256-GCM (random 96-bit nonce, stored as
/// nonce ‖ ciphertext ‖ tag). A credential's associated data is its row's three hashes
/// (the credential-ID hash stands for the ID itself: the file never holds the raw ID), so
/// a record moved to another row, or hashes edited, fail like a forged tag. Records sealed
/// before (`legacyCredentialContext`: the ID hash alone) still open; their row's hashes are
/// then recomputed from the record and compared, and they are sealed anew when next saved.
struct RecordSealer: Sendable {
    let lookup: LookupKeys
    private let sealKey: SymmetricKey
    private let path: String

    /// Derives the two subkeys (HKDF-SHA-256, RFC 5869) from the data key, salted with the store ID.
    init(dataKey: DataKey, storeID: [UInt8], path: String) {
        sealKey = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: dataKey.key, salt: storeID,
            info: Array("passkeyd keystore record seal v1".utf8), outputByteCount: 32)
        lookup = LookupKeys(
            key: HKDF<SHA256>.deriveKey(
                inputKeyMaterial: dataKey.key, salt: storeID,
                info: Array("passkeyd keystore lookup v1".utf8), outputByteCount: 32))
        self.path = path
    }

    private static let deviceStateContext = Array("passkeyd device state v1".utf8) + [0]
    /// The row's hashes as the record's associated data: the tag then vouches that they are
    /// the record's own, and opening needs no HMAC to check them (two per sign-in before).
    static func credentialContext(_ row: CredentialRow) -> [UInt8] {
        var context = credentialLabel
        context.reserveCapacity(
            context.count + row.credentialIDHash.count + row.rpIDHash.count + row.userHandleHash.count)
        context += row.credentialIDHash
        context += row.rpIDHash
        context += row.userHandleHash
        return context
    }
    private static let credentialLabel = Array("passkeyd credential v2".utf8) + [0]
    /// What records sealed before `credentialContext` are bound to: the ID hash alone.
    static func legacyCredentialContext(_ idHash: Data) -> [UInt8] {
        Array("passkeyd credential v1".utf8) + [0] + Array(idHash)
    }

    func seal(_ credential: CredentialSource, encoding: RecordEncoding = .current) throws -> CredentialRow {
        var row = CredentialRow(
            credentialIDHash: lookup.credential(credential.id),
            rpIDHash: lookup.rp(credential.rp.id),
            userHandleHash: lookup.user(rpID: credential.rp.id, handle: credential.user.id),
            sealed: Data())
        row.sealed =
            encoding == .cbor
            ? try seal(CBOREncoder.encode(credential.record), encoding: encoding, context: Self.credentialContext(row))
            : try seal(credential, encoding: encoding, context: Self.credentialContext(row))
        return row
    }

    /// `rp`, when the row was found by an RP ID's hash: the record must be that RP's.
    func open(_ row: CredentialRow, foundBy rp: (rpID: String, rpIDHash: Data)? = nil) throws(KeystoreError)
        -> CredentialSource
    {
        let (credential, legacy) = try open(
            CredentialSource.self, row.sealed, context: Self.credentialContext(row),
            legacyContext: { Self.legacyCredentialContext(row.credentialIDHash) },
            fastPath: CredentialSource.init(record:))
        if let rp, rp.rpIDHash != row.rpIDHash || rp.rpID != credential.rp.id {
            throw .recordAuthenticationFailed(path: path)
        }
        // A legacy tag vouches for the ID hash alone: the others are recomputed from the record
        // (the RP's only when the row was not found by it, which the line above already checked).
        guard
            !legacy
                || lookup.credential(credential.id) == row.credentialIDHash
                    && (rp != nil || lookup.rp(credential.rp.id) == row.rpIDHash)
                    && lookup.user(rpID: credential.rp.id, handle: credential.user.id) == row.userHandleHash
        else { throw .recordAuthenticationFailed(path: path) }
        return credential
    }

    func seal(_ state: DeviceState, encoding: RecordEncoding = .current) throws -> Data {
        try seal(state, encoding: encoding, context: Self.deviceStateContext)
    }

    func openDeviceState(_ sealed: Data) throws(KeystoreError) -> DeviceState {
        try open(DeviceState.self, sealed, context: Self.deviceStateContext).value
    }

    func seal(_ value: some Encodable, encoding: RecordEncoding, context: [UInt8]) throws -> Data {
        try seal(try encoding.encode(value), encoding: encoding, context: context)
    }

    /// `body` is the value already encoded as `encoding` says; it is erased once sealed.
    private func seal(_ body: consuming [UInt8], encoding: RecordEncoding, context: [UInt8]) throws -> Data {
        var plaintext = [encoding.rawValue] + body
        Self.erase(&body)
        defer { Self.erase(&plaintext) }
        // The random nonce drawn in one system call (`SecureRandom`), not `AES.GCM.Nonce()`'s two.
        let nonce = try AES.GCM.Nonce(data: SecureRandom.bytes(12))
        return try AES.GCM.seal(plaintext, using: sealKey, nonce: nonce, authenticating: context).combined!
    }

    /// The record, and whether it opened only with `legacyContext` (tried when `context`
    /// fails). `fastPath` reads a binary record's CBOR without `Codable` when it can (nil: it
    /// cannot, and `Codable` decides, so both paths give one answer for every record).
    private func open<T: Decodable>(
        _ type: T.Type, _ sealed: Data, context: [UInt8], legacyContext: (() -> [UInt8])? = nil,
        fastPath: (CBORValue) -> T? = { _ in nil }
    ) throws(KeystoreError) -> (value: T, legacy: Bool) {
        guard let box = try? AES.GCM.SealedBox(combined: sealed) else { throw .recordAuthenticationFailed(path: path) }
        var legacy = false
        var opened = try? AES.GCM.open(box, using: sealKey, authenticating: context)
        if opened == nil, let legacyContext {
            opened = try? AES.GCM.open(box, using: sealKey, authenticating: legacyContext())
            legacy = true
        }
        guard var plaintext = opened else { throw .recordAuthenticationFailed(path: path) }
        defer { plaintext.resetBytes(in: 0..<plaintext.count) }
        var body = Array(plaintext.dropFirst())
        defer { Self.erase(&body) }
        // An authentic record this build cannot decode was written by a newer build.
        guard let encoding = plaintext.first.flatMap(RecordEncoding.init(rawValue:)) else {
            throw .recordUnreadable(path: path)
        }
        if encoding == .cbor, let item = try? CBORDecoder.decode(body, maxDepth: RecordDecoder.nestingLimit),
            let value = fastPath(item)
        {
            return (value, legacy)
        }
        guard let value = try? encoding.decode(T.self, from: body) else { throw .recordUnreadable(path: path) }
        return (value, legacy)
    }

    /// Plaintext is overwritten once used, so a record's key does not linger in freed memory.
    private static func erase(_ bytes: inout [UInt8]) {
        bytes.withUnsafeMutableBytes { _ = $0.initializeMemory(as: UInt8.self, repeating: 0) }
    }
}
