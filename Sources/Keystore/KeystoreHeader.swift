import Foundation
import GRDB

/// The keystore header row: the store's random ID, how the data key is protected,
/// and the wrapped data key. It holds no secret in the clear.
struct KeystoreHeader: Sendable, Equatable {
    static let storeIDSize = 16

    var storeID: [UInt8]
    var protection: KeyProtection
    var wrappedKey: Data

    func insert(_ db: Database) throws {
        var salt: Data?
        var parameters: ScryptParameters?
        if case .passphrase(let p, let s) = protection {
            parameters = p
            salt = Data(s)
        }
        try db.execute(
            sql: """
                INSERT INTO keystore_header (id, storeID, protection, scryptSalt, scryptLogN, scryptR, scryptP, wrappedKey)
                VALUES (1, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [
                Data(storeID), protection.name, salt, parameters?.logN, parameters?.r, parameters?.p, wrappedKey
            ])
    }

    /// Reads and checks the header of a database already known to carry the keystore's application ID.
    static func read(_ db: Database) throws -> Result<KeystoreHeader, KeystoreError.HeaderDamage> {
        guard try db.tableExists("keystore_header") else { return .failure(.missingTables) }
        guard let row = try Row.fetchOne(db, sql: "SELECT * FROM keystore_header WHERE id = 1") else {
            return .failure(.missingHeaderRow)
        }
        guard let storeID = row.storedBlob("storeID"), storeID.count == storeIDSize,
            let wrappedKey = row.storedBlob("wrappedKey"), wrappedKey.count == 12 + 32 + 16
        else { return .failure(.malformedWrappedKey) }
        let protection: KeyProtection
        switch String.fromDatabaseValue(row.storedValue("protection")) {
        case KeyProtection.keyFileName?:
            protection = .keyFile
        case KeyProtection.scryptName?:
            guard let salt = row.storedBlob("scryptSalt"), salt.count == KeyProtection.saltSize,
                let logN = Int.fromDatabaseValue(row.storedValue("scryptLogN")),
                let r = Int.fromDatabaseValue(row.storedValue("scryptR")),
                let p = Int.fromDatabaseValue(row.storedValue("scryptP"))
            else { return .failure(.invalidScryptParameters) }
            let parameters = ScryptParameters(logN: logN, r: r, p: p)
            guard parameters.isAcceptable else { return .failure(.invalidScryptParameters) }
            protection = .passphrase(parameters, salt: Array(salt))
        default:
            return .failure(.unknownProtection)
        }
        return .success(KeystoreHeader(storeID: Array(storeID), protection: protection, wrappedKey: wrappedKey))
    }
}
