import CTAP
import Crypto

extension Authenticator {
    /// authenticatorLargeBlobs (CTAP 2.1 §6.10.2); step numbers refer to that section.
    /// `write` is the caller's write in progress; on return, the one its next fragment continues.
    func largeBlobs(_ request: LargeBlobsRequest, continuing write: inout LargeBlobWrite?) async throws(CTAPStatus)
        -> LargeBlobsResponse?
    {
        // Step 1: offset is required, as an invalid parameter.
        guard let offset = request.offset else { throw .invalidParameter }
        // Step 2: exactly one of get and set.
        switch (request.get, request.set) {
        case (let get?, nil):
            write = nil
            return try await readLargeBlobs(get, at: offset, request)
        case (nil, let fragment?):
            try await writeLargeBlobs(fragment, at: offset, request, continuing: &write)
            return nil
        default:
            write = nil
            throw .invalidParameter
        }
    }

    /// maxFragmentLength: the largest get or set a message has room for (§6.10.2).
    var maxLargeBlobFragmentLength: Int { configuration.maxMsgSize - 64 }

    /// The stored serialized large-blob array; the initial one until a write (§6.10.1).
    func serializedLargeBlobArray() async throws(CTAPStatus) -> [UInt8] {
        try await deviceState().largeBlobArray ?? SerializedLargeBlobArray.initial.bytes
    }

    /// Step 3: a read, which needs no authorisation.
    private func readLargeBlobs(_ get: Int, at offset: Int, _ request: LargeBlobsRequest) async throws(CTAPStatus)
        -> LargeBlobsResponse
    {
        // Steps 3.1–3.2: a read carries no length and no pinUvAuth parameters.
        if request.length != nil || request.pinUvAuthParam != nil || request.pinUvAuthProtocol != nil {
            throw .invalidParameter
        }
        // Step 3.3.
        guard get <= maxLargeBlobFragmentLength else { throw .invalidLength }
        // Step 3.4.
        let stored = try await serializedLargeBlobArray()
        guard offset <= stored.count else { throw .invalidParameter }
        // Step 3.5: at most `get` bytes from `offset`.
        return LargeBlobsResponse(config: Array(stored[offset..<min(stored.count, offset + get)]))
    }

    /// Step 4: one fragment of a new array. The array replaces the stored one only when its
    /// last fragment arrives with a hash that matches; until then nothing stored changes.
    private func writeLargeBlobs(
        _ fragment: [UInt8], at offset: Int, _ request: LargeBlobsRequest,
        continuing write: inout LargeBlobWrite?
    ) async throws(CTAPStatus) {
        let pending = write
        write = nil
        // Step 4.1.
        guard fragment.count <= maxLargeBlobFragmentLength else { throw .invalidLength }
        var current: LargeBlobWrite
        if offset == 0 {
            // Step 4.2: the first fragment says how long the whole array is.
            guard let length = request.length else { throw .invalidParameter }
            guard length <= configuration.maxSerializedLargeBlobArray else { throw .largeBlobStorageFull }
            guard length >= SerializedLargeBlobArray.minimumLength else { throw .invalidParameter }
            current = LargeBlobWrite(expectedLength: length, lastAnswerAt: configuration.now())
        } else {
            // Step 4.3: later fragments do not repeat it.
            guard request.length == nil else { throw .invalidParameter }
            // Step 4.4: and continue exactly where the last one ended.
            guard let pending, offset == pending.expectedNextOffset else { throw .invalidSequence }
            current = pending
        }
        // Step 4.5: a device protected by user verification (or with alwaysUv on) takes writes only with a
        // pinUvAuthToken holding lbw, over 32×0xff ‖ h'0c00' ‖ uint32LE(offset) ‖ SHA-256(set).
        let alwaysUv = try await deviceState().alwaysUv == true
        if try await isProtectedByUV() || alwaysUv {
            guard let param = request.pinUvAuthParam else { throw .puatRequired }
            guard request.pinUvAuthProtocol != nil else { throw .missingParameter }
            let message = LargeBlobsRequest.authenticatedMessage(offset: offset, fragmentHash: Self.sha256(fragment))
            _ = try authorize(
                param, protocol: try pinUvAuthProtocol(request.pinUvAuthProtocol), message: message, permission: .lbw)
        }
        // Step 4.6.
        guard offset + fragment.count <= current.expectedLength else { throw .invalidParameter }
        // Steps 4.7–4.8.
        current.buffer += fragment
        current.lastAnswerAt = configuration.now()
        guard current.expectedNextOffset == current.expectedLength else {
            write = current
            return
        }
        // Step 4.9: the complete array, its hash checked, replaces the stored one durably.
        let array = try SerializedLargeBlobArray(validating: current.buffer)
        try await updateDeviceState { $0.largeBlobArray = array.bytes }
        logger.info("large-blob array written", metadata: ["bytes": "\(array.bytes.count)"])
    }
}

/// A large-blob array being written in fragments (CTAP 2.1 §6.10.2 step 4): what has
/// arrived so far and how long the whole will be.
struct LargeBlobWrite: Sendable {
    let expectedLength: Int
    var buffer: [UInt8] = []
    var lastAnswerAt: ContinuousClock.Instant

    /// expectedNextOffset: where the next fragment must start.
    var expectedNextOffset: Int { buffer.count }
}
