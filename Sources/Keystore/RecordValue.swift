import CBOR
import Foundation

/// The scalars of a record's binary encoding (`RecordEncoding.cbor`) and the CBOR each is
/// written as. Byte strings stay byte strings (JSON wrote them as arrays of numbers, the
/// cost of opening a record), and a `Double` (a `Date` writes one) is its IEEE 754 bit
/// pattern as an unsigned integer: exact, and the CBOR module has no floats.
protocol RecordScalar {
    init(record value: CBORValue) throws
    var recordValue: CBORValue { get }
}

/// Why a record's CBOR does not fit the type it is read as.
enum RecordValueMismatch: Error {
    case expected(Any.Type, found: CBORValue)
}

extension Bool: RecordScalar {
    init(record value: CBORValue) throws {
        guard case .boolean(let bool) = value else { throw RecordValueMismatch.expected(Self.self, found: value) }
        self = bool
    }
    var recordValue: CBORValue { .boolean(self) }
}

extension String: RecordScalar {
    init(record value: CBORValue) throws {
        guard case .textString(let text) = value else { throw RecordValueMismatch.expected(Self.self, found: value) }
        self = text
    }
    var recordValue: CBORValue { .textString(self) }
}

extension Double: RecordScalar {
    init(record value: CBORValue) throws {
        guard case .unsigned(let bits) = value else { throw RecordValueMismatch.expected(Self.self, found: value) }
        self = Double(bitPattern: bits)
    }
    var recordValue: CBORValue { .unsigned(bitPattern) }
}

extension Float: RecordScalar {
    init(record value: CBORValue) throws { self = Float(try Double(record: value)) }
    var recordValue: CBORValue { Double(self).recordValue }
}

/// Every fixed-width integer: major type 0 or 1, range-checked on the way in.
protocol RecordInteger: FixedWidthInteger, RecordScalar {}

extension RecordInteger {
    init(record value: CBORValue) throws {
        let converted: Self?
        switch value {
        case .unsigned(let magnitude): converted = Self(exactly: magnitude)
        // -1 - n, which is ~n, computed in the type's own range so Int64.min still fits.
        case .negative(let n): converted = Self.isSigned ? Self(exactly: n).map { ~$0 } : nil
        default: converted = nil
        }
        guard let converted else { throw RecordValueMismatch.expected(Self.self, found: value) }
        self = converted
    }

    var recordValue: CBORValue {
        self < 0 ? .negative(UInt64(~self)) : .unsigned(UInt64(self))
    }
}

extension Int: RecordInteger {}
extension Int8: RecordInteger {}
extension Int16: RecordInteger {}
extension Int32: RecordInteger {}
extension Int64: RecordInteger {}
extension UInt: RecordInteger {}
extension UInt8: RecordInteger {}
extension UInt16: RecordInteger {}
extension UInt32: RecordInteger {}
extension UInt64: RecordInteger {}
