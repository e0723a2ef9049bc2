/// A key the interactive demo understands, decoded from the terminal's bytes (VT100 arrows).
enum Key: Sendable, Equatable {
    case up
    case down
    case enter
    case escape
    case backspace
    case tab
    /// Ctrl-C or Ctrl-D: leave the demo.
    case quit
    case character(Character)

    /// Decodes one key from the front of `bytes`; nil when more bytes are needed.
    static func decode(_ bytes: inout [UInt8]) -> Key? {
        guard let first = bytes.first else { return nil }
        switch first {
        case 0x1B:
            // ESC [ A / ESC [ B (or ESC O A/B in application mode); a lone ESC is Escape.
            if bytes.count >= 3, bytes[1] == UInt8(ascii: "[") || bytes[1] == UInt8(ascii: "O") {
                let final = bytes[2]
                bytes.removeFirst(3)
                switch final {
                case UInt8(ascii: "A"): return .up
                case UInt8(ascii: "B"): return .down
                default: return decode(&bytes)
                }
            }
            if bytes.count == 1 {
                bytes.removeFirst()
                return .escape
            }
            if bytes[1] != UInt8(ascii: "[") && bytes[1] != UInt8(ascii: "O") {
                bytes.removeFirst()
                return .escape
            }
            return nil
        case 0x0D, 0x0A:
            bytes.removeFirst()
            return .enter
        case 0x7F, 0x08:
            bytes.removeFirst()
            return .backspace
        case 0x03, 0x04:
            bytes.removeFirst()
            return .quit
        case 0x09:
            bytes.removeFirst()
            return .tab
        default:
            // One UTF-8 scalar.
            let length = first < 0x80 ? 1 : first < 0xE0 ? 2 : first < 0xF0 ? 3 : 4
            guard bytes.count >= length else { return nil }
            let scalarBytes = Array(bytes.prefix(length))
            bytes.removeFirst(length)
            guard let text = String(bytes: scalarBytes, encoding: .utf8), let character = text.first else {
                return decode(&bytes)
            }
            return .character(character)
        }
    }
}
