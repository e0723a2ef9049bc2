/// A fuzz input read front to back. Every read succeeds: past the end it yields zeros or
/// nothing, so each byte string the fuzzer makes is some valid sequence of steps.
public struct FuzzInput: Sendable {
    private let bytes: [UInt8]
    private var offset = 0

    public init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// The input libFuzzer hands to `LLVMFuzzerTestOneInput`.
    public init(_ start: UnsafePointer<UInt8>?, _ count: Int) {
        self.init(start.map { Array(UnsafeBufferPointer(start: $0, count: count)) } ?? [])
    }

    public var isAtEnd: Bool { offset >= bytes.count }

    /// Everything not yet read.
    public var rest: [UInt8] { isAtEnd ? [] : Array(bytes[offset...]) }

    public mutating func byte() -> UInt8 {
        guard offset < bytes.count else { return 0 }
        defer { offset += 1 }
        return bytes[offset]
    }

    /// Up to `count` bytes: fewer when the input runs out.
    public mutating func bytes(_ count: Int) -> [UInt8] {
        let end = min(bytes.count, offset + count)
        guard offset < end else { return [] }
        defer { offset = end }
        return Array(bytes[offset..<end])
    }

    /// A byte string preceded by its big-endian 16-bit length.
    public mutating func chunk() -> [UInt8] {
        let length = Int(byte()) << 8 | Int(byte())
        return bytes(length)
    }
}

/// Stops the run as a crash (libFuzzer keeps the input) when a property of the code under
/// test does not hold: fuzzing finds wrong answers as well as traps.
public func require(_ condition: Bool, _ message: @autoclosure () -> String, file: StaticString = #file, line: UInt = #line) {
    if !condition { fatalError(message(), file: file, line: line) }
}
