import CTAP

/// The host's side of CTAP1/U2F over any transport (FIDO U2F Raw Message Formats §4–§5; CTAP
/// 2.1 §10): the commands a platform sends a U2F-only key, each answer read once into a typed
/// value. Failures are the CTAP2 statuses CTAP 2.1 §10 maps them to, so a ceremony handles
/// them as it handles a CTAP2 key's.
public struct CTAP1Session: Sendable {
    public let transport: any CTAPTransport
    /// Receives keepalive statuses, e.g. to show "touch your authenticator".
    public let onKeepalive: @Sendable (KeepaliveStatus) -> Void
    /// How long to wait before asking again while the key waits for a touch
    /// (SW_CONDITIONS_NOT_SATISFIED); Chromium waits 200 ms.
    public var presenceRetryDelay: Duration = .milliseconds(200)

    /// The P1 of a registration: enforce user presence and sign (0x03, what CTAP 2.1 §10.2 and
    /// Chromium send; U2F devices test presence whatever it says).
    static let registerControl: UInt8 = 0x03

    /// The application and challenge of a registration whose only purpose is a touch (CTAP 2.1
    /// §10.2, an excluded credential; Chromium's "bogus" registration): fixed values no relying
    /// party's hash can be (the application parameter is not a SHA-256 of an RP ID anyone uses).
    static let dummyApplication = [UInt8](repeating: 0x41, count: 32)
    static let dummyChallenge = [UInt8](repeating: 0x42, count: 32)

    public init(transport: any CTAPTransport, onKeepalive: @escaping @Sendable (KeepaliveStatus) -> Void = { _ in }) {
        self.transport = transport
        self.onKeepalive = onKeepalive
    }

    /// Sends one APDU and reads the response APDU.
    public func send(_ apdu: CommandAPDU) async throws(CTAP2Error) -> ResponseAPDU {
        let reply: [UInt8]
        do { reply = try await transport.sendAPDU(apdu.bytes, keepalive: onKeepalive) } catch {
            throw .transport(error)
        }
        guard let response = ResponseAPDU(bytes: reply) else { throw .malformedResponse }
        return response
    }

    /// Sends `apdu` until the key stops answering SW_CONDITIONS_NOT_SATISFIED (a touch is
    /// pending), a short sleep apart. Only the ceremony's timeout or cancellation ends the wait,
    /// as `.keepaliveCancel`.
    func sendAwaitingPresence(_ apdu: CommandAPDU) async throws(CTAP2Error) -> ResponseAPDU {
        while true {
            let response = try await send(apdu)
            guard response.statusWord == .conditionsNotSatisfied else { return response }
            do { try await Task.sleep(for: presenceRetryDelay) } catch { throw .status(.keepaliveCancel) }
        }
    }

    /// U2F_REGISTER with presence (§4): the key's new credential, its attestation certificate
    /// and signature.
    public func register(challenge: [UInt8], application: [UInt8]) async throws(CTAP2Error) -> U2FRegistration {
        var apdu = U2FRequest.register(U2FRegisterRequest(challenge: challenge, application: application)).apdu
        apdu.p1 = Self.registerControl
        let response = try await sendAwaitingPresence(apdu)
        guard response.statusWord == .noError else { throw .status(.other) }
        guard let registration = U2FRegistration(responseData: response.data) else { throw .malformedResponse }
        return registration
    }

    /// Waits for a touch and nothing else: a registration for no relying party, its credential
    /// thrown away (CTAP 2.1 §10.2 for an excluded credential; Chromium's U2fSignOperation for a
    /// key that holds none of the allowed ones).
    public func waitForTouch() async throws(CTAP2Error) {
        _ = try await register(challenge: Self.dummyChallenge, application: Self.dummyApplication)
    }

    /// U2F_AUTHENTICATE check-only (§5.1, P1 0x07): whether the key made `keyHandle` for
    /// `application`. SW_CONDITIONS_NOT_SATISFIED is yes; SW_WRONG_DATA (and SW_WRONG_LENGTH,
    /// which older keys send for a key handle of another length) is no.
    public func recognizes(keyHandle: [UInt8], application: [UInt8]) async throws(CTAP2Error) -> Bool {
        guard keyHandle.count <= 255 else { return false }
        let request = U2FAuthenticateRequest(
            control: .checkOnly, challenge: Self.dummyChallenge, application: application, keyHandle: keyHandle)
        let response = try await send(U2FRequest.authenticate(request).apdu)
        switch response.statusWord {
        case .conditionsNotSatisfied: return true
        case .wrongData, .wrongLength: return false
        default: throw .status(.other)
        }
    }

    /// U2F_AUTHENTICATE enforcing presence (§5.1, P1 0x03) with one key handle, asking again while
    /// the touch is pending. Nil when the key does not know the key handle (SW_WRONG_DATA).
    public func authenticate(keyHandle: [UInt8], challenge: [UInt8], application: [UInt8])
        async throws(CTAP2Error) -> U2FAuthentication?
    {
        guard keyHandle.count <= 255 else { return nil }
        let request = U2FAuthenticateRequest(
            control: .enforceUserPresence, challenge: challenge, application: application, keyHandle: keyHandle)
        let response = try await sendAwaitingPresence(U2FRequest.authenticate(request).apdu)
        switch response.statusWord {
        case .noError: break
        case .wrongData, .wrongLength: return nil
        default: throw .status(.other)
        }
        guard let authentication = U2FAuthentication(responseData: response.data) else { throw .malformedResponse }
        return authentication
    }
}
