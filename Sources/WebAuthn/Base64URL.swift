/// base64url (RFC 4648 §5) as WebAuthn L3 uses it for `Base64URLString`:
/// encoded without `=` padding; decoding accepts input with or without
/// correct padding (as py_webauthn and python-fido2 do) and rejects every
/// character outside the URL-safe alphabet, including `+` and `/`.
public enum Base64URL {
    /// Why a string is not base64url.
    public enum DecodingError: Error, Sendable, Hashable {
        /// A character outside `A-Z a-z 0-9 - _` (or `=` where padding may stand).
        case invalidCharacter
        /// A length no base64 encoding can have (one character left over), or wrong padding.
        case invalidLength
    }

    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    private static let reverse: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (index, character) in alphabet.enumerated() { table[Int(character)] = UInt8(index) }
        return table
    }()

    public static func encode(_ bytes: some Collection<UInt8>) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count * 4 + 2) / 3)
        var iterator = bytes.makeIterator()
        while let b0 = iterator.next() {
            let b1 = iterator.next()
            let b2 = iterator.next()
            out.append(alphabet[Int(b0 >> 2)])
            out.append(alphabet[Int((b0 & 0x03) << 4 | (b1 ?? 0) >> 4)])
            guard let b1 else { break }
            out.append(alphabet[Int((b1 & 0x0F) << 2 | (b2 ?? 0) >> 6)])
            guard let b2 else { break }
            out.append(alphabet[Int(b2 & 0x3F)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    public static func decode(_ string: String) throws(DecodingError) -> [UInt8] {
        var characters = Array(string.utf8)
        if characters.count % 4 == 0, let firstPad = characters.firstIndex(of: UInt8(ascii: "=")) {
            let padding = characters.count - firstPad
            guard padding <= 2, characters[firstPad...].allSatisfy({ $0 == UInt8(ascii: "=") }) else {
                throw .invalidLength
            }
            characters.removeLast(padding)
        }
        guard characters.count % 4 != 1 else { throw .invalidLength }
        var out: [UInt8] = []
        out.reserveCapacity(characters.count * 3 / 4)
        var accumulator: UInt32 = 0
        var bits = 0
        for character in characters {
            let value = reverse[Int(character)]
            guard value != 0xFF else { throw .invalidCharacter }
            accumulator = accumulator << 6 | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                out.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
            }
        }
        return out
    }
}
