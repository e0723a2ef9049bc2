import CTAP
import Crypto
import Logging
import WebAuthn

/// The platform role for one origin: what a browser does for a web page. Takes a relying party's
/// WebAuthn options, checks them, talks CTAP2 to the authenticator (CTAP1/U2F to a U2F-only key,
/// CTAP 2.1 §10), asks the person through a `UserAgent`, and returns the JSON the server expects.
public struct WebAuthnClient: Sendable {
    /// How the authenticator is reached.
    public let transport: any CTAPTransport
    /// The caller's origin: what RP IDs are checked against and what client data names.
    public let origin: Origin
    /// The top-level browsing context's origin, when it differs from `origin`: the ceremony
    /// then runs in a cross-origin frame and the client data says so (WebAuthn L3 §5.8.1).
    public let topOrigin: Origin?
    /// Who asks the person: pickers, PINs, confirmations, progress.
    public let userAgent: any UserAgent
    let rpIDPolicy: RelyingPartyIDPolicy
    let loggers: Loggers
    private let statusRelay: StatusRelay

    /// Log categories; none of them ever carries a PIN, a token or a key.
    struct Loggers: Sendable {
        var authentication = Logger(label: "passkeyd.client.authentication")
        var challenge = Logger(label: "passkeyd.client.challenge")
        var verification = Logger(label: "passkeyd.client.verification")
    }

    /// - Parameters:
    ///   - transport: how the authenticator is reached, e.g. `UnixSocketTransport()`.
    ///   - origin: the caller's origin, e.g. `https://example.com`; https, or http on localhost.
    ///   - topOrigin: the top-level origin (a browser's tab) when the caller may be a frame; an
    ///     origin equal to `origin` is a same-origin call.
    ///   - userAgent: who asks the person.
    ///   - publicSuffixes: the list for RP ID checks; by default Debian's `publicsuffix` file.
    /// - Throws: `SecurityError` for an origin that is not a secure context; `NotSupportedError`
    ///   when no public suffix list is given and Debian's is missing.
    public init(
        transport: any CTAPTransport, origin: String, topOrigin: String? = nil, userAgent: any UserAgent,
        publicSuffixes: PublicSuffixList? = nil
    ) throws(WebAuthnError) {
        guard let list = publicSuffixes ?? PublicSuffixList.system() else {
            throw .notSupported(
                "The public suffix list is missing (\(PublicSuffixList.systemPath)); install Debian's publicsuffix package."
            )
        }
        self.transport = transport
        let origin = try Origin(origin)
        self.origin = origin
        let top = try topOrigin.map { (text: String) throws(WebAuthnError) -> Origin in try Origin(text) }
        self.topOrigin = top == origin ? nil : top
        self.userAgent = userAgent
        statusRelay = StatusRelay(to: userAgent)
        self.rpIDPolicy = RelyingPartyIDPolicy(publicSuffixes: list)
        self.loggers = Loggers()
    }

    /// A CTAP2 session whose keepalives reach the user agent ("touch your authenticator").
    func makeSession() -> CTAP2Session {
        CTAP2Session(transport: transport, onKeepalive: { [statusRelay] status in statusRelay.relay(status) })
    }

    /// The client data of a ceremony and its hash (WebAuthn L3 §5.8.1): `crossOrigin` and
    /// `topOrigin` only for a call from a frame whose origin is not the top-level one.
    func clientData(_ type: CollectedClientData.CeremonyType, challenge: [UInt8]) -> (json: [UInt8], hash: [UInt8]) {
        let json = CollectedClientData(
            type: type, challenge: challenge, origin: origin.description,
            crossOrigin: topOrigin != nil, topOrigin: topOrigin?.description
        ).serialized
        loggers.challenge.debug(
            "client data collected", metadata: ["type": "\(type.rawValue)", "challengeBytes": "\(challenge.count)"])
        return (json, Array(SHA256.hash(data: json)))
    }

    /// getClientCapabilities() (WebAuthn L3 §5.1.7): what this client really implements, under
    /// every key Chromium reports. The two platform-authenticator capabilities are the
    /// authenticator's to tell (`Attachment`), and so are the extensions the client forwards
    /// (getInfo's extensions and options): an authenticator that cannot be reached has none.
    /// False where the client does nothing: AppID (FIDO U2F credentials, WebAuthn L3 §10.1.1–2),
    /// payment (§5.10), minPinLength (not forwarded), hybrid transport, related origins (§5.11).
    public func getClientCapabilities() async -> [String: Bool] {
        let info = try? await makeSession().getInfo()
        let attachment = info.map(Attachment.init)
        let extensions = Set(info?.extensions ?? [])
        let credBlob = extensions.contains(CredBlob.identifier)
        let credProtect = extensions.contains(CredProtect.identifier)
        return [
            "conditionalCreate": false,
            "conditionalGet": true,
            "hybridTransport": false,
            "immediateGet": true,
            "passkeyPlatformAuthenticator": attachment?.isPasskeyPlatformAuthenticator ?? false,
            "userVerifyingPlatformAuthenticator": attachment?.isUserVerifyingPlatformAuthenticator ?? false,
            "relatedOrigins": false,
            "signalAllAcceptedCredentials": true,
            "signalCurrentUserDetails": true,
            "signalUnknownCredential": true,
            "extension:appid": false,
            "extension:appidExclude": false,
            "extension:cmtgKey": false,
            "extension:credBlob": credBlob,
            "extension:credProps": true,
            "extension:credentialProtectionPolicy": credProtect,
            "extension:crossDeviceFallbackUrl": false,
            "extension:enforceCredentialProtectionPolicy": credProtect,
            "extension:getCredBlob": credBlob,
            "extension:hmacCreateSecret": extensions.contains(HMACSecret.identifier),
            "extension:largeBlob": extensions.contains(LargeBlobKey.identifier) && info?.options["largeBlobs"] == true,
            "extension:minPinLength": false,
            "extension:payment": false,
            "extension:prf": extensions.contains(HMACSecret.identifier)
        ]
    }

    /// isUserVerifyingPlatformAuthenticatorAvailable() (WebAuthn L3 §5.1.7): whether the
    /// authenticator is a platform one (getInfo transports `internal`) that verifies users itself.
    public func isUserVerifyingPlatformAuthenticatorAvailable() async -> Bool {
        (try? await Attachment(makeSession().getInfo()))?.isUserVerifyingPlatformAuthenticator ?? false
    }
}
