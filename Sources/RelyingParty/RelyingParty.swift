import CTAP
import Crypto
import WebAuthn

/// A WebAuthn relying party: it issues ceremony options with fresh challenges and verifies
/// the responses (WebAuthn L3 §7).
///
/// The configuration is a value; the pending challenges live in a shared `ChallengeStore`
/// actor, so copies of a `RelyingParty` see the same challenges.
public struct RelyingParty: Sendable {
    /// The RP ID: a registrable domain suffix of the origins (WebAuthn L3 §5.4.2).
    public var id: String
    /// The RP's name for people, sent in registration options.
    public var name: String
    /// Serialized origins responses may come from, e.g. `https://example.com`.
    public var origins: Set<String>
    /// Top-level origins under which a cross-origin iframe may run a ceremony; empty refuses them all.
    public var topOrigins: Set<String>
    /// `pubKeyCredParams`, most preferred first.
    public var algorithms: [COSEAlgorithm]
    /// The `timeout` hint of issued options, in milliseconds.
    public var timeout: UInt32
    /// The challenges issued and not yet answered, shared by copies of this value.
    public let challenges: ChallengeStore

    /// A relying party with its identity, the origins it accepts and the algorithms it offers,
    /// ES256 and EdDSA by default; options ask for 5 minutes (`timeout`, milliseconds).
    public init(
        id: String, name: String, origins: Set<String>, topOrigins: Set<String> = [],
        algorithms: [COSEAlgorithm] = [.es256, .edDSA], timeout: UInt32 = 300_000,
        challenges: ChallengeStore = ChallengeStore()
    ) {
        self.id = id
        self.name = name
        self.origins = origins
        self.topOrigins = topOrigins
        self.algorithms = algorithms
        self.timeout = timeout
        self.challenges = challenges
    }

    /// 32 random bytes (WebAuthn L3 §13.4.3 asks for at least 16).
    static func newChallenge() -> [UInt8] {
        SymmetricKey(size: .bits256).withUnsafeBytes { Array($0) }
    }

    /// Registration options with a fresh challenge, remembered until a response uses it.
    public func registrationOptions(
        user: PublicKeyCredentialUserEntityJSON,
        excludeCredentials: [PublicKeyCredentialDescriptorJSON] = [],
        residentKey: ResidentKeyRequirement = .required,
        userVerification: UserVerificationRequirement = .preferred,
        authenticatorAttachment: AuthenticatorAttachment? = nil,
        hints: [PublicKeyCredentialHint] = [],
        attestation: AttestationConveyancePreference = .none
    ) async -> PublicKeyCredentialCreationOptionsJSON {
        let options = PublicKeyCredentialCreationOptionsJSON(
            rp: PublicKeyCredentialRpEntityJSON(id: id, name: name),
            user: user,
            challenge: Self.newChallenge(),
            pubKeyCredParams: algorithms.map(PublicKeyCredentialParametersJSON.init),
            timeout: timeout,
            excludeCredentials: excludeCredentials,
            authenticatorSelection: AuthenticatorSelectionCriteria(
                authenticatorAttachment: authenticatorAttachment, residentKey: residentKey,
                userVerification: userVerification),
            hints: hints,
            attestation: attestation,
            extensions: AuthenticationExtensionsClientInputsJSON(credProps: true))
        await challenges.remember(options.challenge, for: .registration(options))
        return options
    }

    /// Authentication options with a fresh challenge, remembered until a response uses it.
    /// `user` is the account identified beforehand (username, cookie), nil for a
    /// username-less sign-in with a discoverable credential.
    public func authenticationOptions(
        allowCredentials: [PublicKeyCredentialDescriptorJSON] = [],
        userVerification: UserVerificationRequirement = .preferred,
        user: [UInt8]? = nil,
        hints: [PublicKeyCredentialHint] = []
    ) async -> PublicKeyCredentialRequestOptionsJSON {
        let options = PublicKeyCredentialRequestOptionsJSON(
            challenge: Self.newChallenge(), timeout: timeout, rpId: id,
            allowCredentials: allowCredentials, userVerification: userVerification, hints: hints)
        await challenges.remember(options.challenge, for: .authentication(options, user: user))
        return options
    }

    /// Verifies a registration response against the options it answers, found through the
    /// challenge in its client data; the challenge is used up whatever the outcome.
    /// User verification is required when the options said `required`.
    public func finishRegistration(_ response: RegistrationResponseJSON) async throws(VerificationError)
        -> RegisteredCredential
    {
        guard case .registration(let options)? = await takeChallenge(of: response.response.clientDataJSON) else {
            throw .unknownChallenge
        }
        return try verifyRegistration(response, options: options)
    }

    /// Verifies an authentication response against the options it answers, found through the
    /// challenge in its client data; the challenge is used up whatever the outcome.
    /// `lookup` finds the credential record by credential ID (it may ask an actor or a database).
    public func finishAuthentication(
        _ response: AuthenticationResponseJSON,
        credential lookup: @Sendable (_ credentialID: [UInt8]) async -> RegisteredCredential?
    ) async throws(VerificationError) -> VerifiedAuthentication {
        guard case .authentication(let options, let user)? = await takeChallenge(of: response.response.clientDataJSON)
        else {
            throw .unknownChallenge
        }
        let record = await lookup(response.rawId)
        return try verifyAuthentication(response, options: options, user: user, credential: { _ in record })
    }

    private func takeChallenge(of clientDataJSON: [UInt8]) async -> ChallengeStore.Ceremony? {
        guard let clientData = try? CollectedClientData(json: clientDataJSON) else { return nil }
        return await challenges.take(clientData.challenge)
    }
}
