import Foundation
import GRDB

extension Row {
    /// The value stored under `column`, or NULL when a damaged schema no longer names it.
    /// GRDB's converting subscripts trap on a missing column or a value of another storage
    /// class; a keystore file is input, so a damaged one is refused with its reason instead.
    func storedValue(_ column: String) -> DatabaseValue {
        hasColumn(column) ? self[column] as DatabaseValue : .null
    }

    /// The blob under `column`, or nil when it is missing, NULL or not a blob.
    func storedBlob(_ column: String) -> Data? { Data.fromDatabaseValue(storedValue(column)) }
}
