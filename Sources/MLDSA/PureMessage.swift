/// M′ of pure ML-DSA: 0x00 ‖ |ctx| ‖ ctx ‖ M (FIPS 204 Algorithm 2 step 10, Algorithm 3 step 5),
/// the domain separation that binds a signature to its context string.
enum PureMessage {
    /// nil when ctx is longer than 255 bytes (Algorithm 2 steps 1–3, Algorithm 3 steps 1–3).
    static func format(_ message: some Collection<UInt8>, context: [UInt8]) -> [UInt8]? {
        guard context.count <= 255 else { return nil }
        return [0, UInt8(context.count)] + context + Array(message)
    }
}
