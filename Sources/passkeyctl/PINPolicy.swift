import CTAP

/// What the authenticator will accept as a PIN, checked before sending so the person hears why (CTAP 2.1 §6.5.5.5).
enum PINPolicy {
    static func check(_ pin: String, info: GetInfoResponse) throws(Failure) {
        let minimum = info.minPINLength ?? 4
        // minPINLength counts Unicode code points (CTAP 2.1 §6.4); the padded block holds 63 bytes.
        guard pin.unicodeScalars.count >= minimum else {
            throw .refused("The PIN must have at least \(minimum) characters; nothing was changed.")
        }
        guard pin.utf8.count <= 63 else {
            throw .refused("The PIN must fit in 63 bytes of UTF-8; nothing was changed.")
        }
    }
}
