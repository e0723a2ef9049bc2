/// Bytes owned by one final class, zeroed when it goes.
final class SecretBytes: @unchecked Sendable {
    // @unchecked: `storage` is written only by `deinit`, when no other reference exists.
    private var storage: [UInt8]

    /// Copies `bytes` into a buffer of its own (`map` always allocates), which the caller's wipe cannot reach.
    init(_ bytes: [UInt8]) { storage = bytes.map { $0 } }

    /// A copy: handing out `storage` itself would share its buffer with the caller.
    var bytes: [UInt8] { storage.map { $0 } }

    deinit { Wipe.array(&storage) }
}
