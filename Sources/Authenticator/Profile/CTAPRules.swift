import CTAP

/// The choices where CTAP 2.0 (Proposed Standard, 2019-01-30), the CTAP 2.1 review draft that
/// `FIDO_2_1_PRE` keys implement, CTAP 2.1 (Proposed Standard, 2021-06-15) and CTAP 2.2 answer
/// the same request differently, as data the command steps consult. Each is listed with the
/// specs' sections in docs/profiles.md.
public struct CTAPRules: Sendable, Hashable {
    /// What getInfo reports besides versions and extensions.
    public enum InfoMembers: Sendable, Hashable {
        /// 2.0 §5.4: members 0x01–0x06; options rk, up, plat, clientPin, uv.
        case ctap20
        /// The 2.1 review draft: members 0x01–0x0A (maxCredentialCountInList … algorithms);
        /// options of 2.0 plus `credentialMgmtPreview` and, with a fingerprint reader,
        /// `userVerificationMgmtPreview` (2.1 §6.4 keeps both names for `FIDO_2_1_PRE`).
        case ctap21Preview
        /// 2.1 §6.4: every member this device fills, and the options pinUvAuthToken,
        /// credMgmt, makeCredUvNotRqd.
        case ctap21
        /// 2.2 §6.4: 2.1's, plus attestationFormats (0x16), uvCountSinceLastPinEntry (0x17),
        /// longTouchForReset (0x18), transportsForReset (0x1A), pinComplexityPolicy (0x1B),
        /// maxPINLength (0x1D), encCredStoreState (0x1E) and authenticatorConfigCommands (0x1F).
        case ctap22
    }

    /// What a makeCredential without pinAuth (and without built-in UV) meets on a device with a PIN.
    public enum ProtectedMakeCredential: Sendable, Hashable {
        /// 2.0 §5.1 step 6: `CTAP2_ERR_PIN_REQUIRED`, whatever the credential.
        case pinRequired
        /// 2.1 §6.1.2 step 11 with makeCredUvNotRqd: only a discoverable credential needs
        /// UV (`CTAP2_ERR_PUAT_REQUIRED`).
        case uvNotRequiredForNonDiscoverable
    }

    /// How a PIN token is used (2.0 §5.5.7 pinToken; 2.1 §6.5.2.2 pinUvAuthToken).
    public struct TokenUse: Sendable, Hashable {
        /// The usage timer retires it (2.1); a 2.0 pinToken lives until the next power cycle.
        public var expires: Bool
        /// Its first makeCredential or getAssertion binds it to that RP ID (2.1 §6.5.5.7).
        public var bindsToRP: Bool
        /// Collected presence clears its flags and permissions (2.1 §6.1.2 step 14, §6.2.2 step 10).
        public var spentByPresence: Bool

        /// 2.0 §5.5.2, §5.5.7: the pinToken serves every makeCredential and getAssertion until
        /// the next power cycle or getPINToken.
        public static let untilPowerCycle = TokenUse(expires: false, bindsToRP: false, spentByPresence: false)
        /// 2.1 §6.5.2.2.
        public static let permissionsAndTimers = TokenUse(expires: true, bindsToRP: true, spentByPresence: true)
    }

    public var infoMembers: InfoMembers
    /// CTAP2 commands this version does not have: `CTAP1_ERR_INVALID_COMMAND`.
    public var withheldCommands: Set<CTAPCommand>
    /// clientPIN subcommands this version does not have: `CTAP2_ERR_INVALID_SUBCOMMAND`.
    public var withheldPINSubcommands: Set<ClientPINSubcommand>
    /// credentialManagement subcommands this version does not have: `CTAP2_ERR_INVALID_SUBCOMMAND`.
    /// updateUserInformation (0x07) came with 2.1 §6.8.7; the prototype command 0x41 of the
    /// review draft (2.1 §6.13) has subcommands 0x01–0x06.
    public var withheldCredentialManagementSubcommands: Set<CredentialManagementSubcommand>
    /// What the token of getPinToken (0x05) may do. 2.1 §6.5.5.7.1: mc and ga. The review draft
    /// has no permissions: its pinToken authenticates every command that takes a pinUvAuthParam,
    /// credential management (2.1 §6.13) and bio enrollment (2.1 §6.12) included.
    public var legacyTokenPermissions: PinUvAuthTokenPermissions
    /// PIN/UV auth protocols, the platform's preferred first (getInfo `pinUvAuthProtocols`).
    public var pinUvAuthProtocols: [PinUvAuthProtocolVersion]
    /// makeCredential or getAssertion with a pinAuth but no pinProtocol, or one not supported:
    /// 2.0 §5.1 step 7 and §5.2 step 3 say `CTAP2_ERR_PIN_AUTH_INVALID`; 2.1 §6.1.2 step 2
    /// says `CTAP2_ERR_MISSING_PARAMETER` and `CTAP1_ERR_INVALID_PARAMETER`.
    public var missingPinProtocol: CTAPStatus
    public var unsupportedPinProtocol: CTAPStatus
    public var protectedMakeCredential: ProtectedMakeCredential
    /// getAssertion's `rk` option: 2.0 §5.2 step 5 (known, not valid for the command:
    /// `CTAP2_ERR_INVALID_OPTION`); 2.1 §6.2.2 step 5.1 (`CTAP2_ERR_UNSUPPORTED_OPTION`).
    public var rkInGetAssertion: CTAPStatus
    /// `uv` true on a device without built-in UV: 2.0 §5.1 step 3 / §5.2 step 5 (known, not
    /// supported: `CTAP2_ERR_UNSUPPORTED_OPTION`); 2.1 §6.1.2 step 5.3, §6.2.2 step 5.3
    /// (`CTAP2_ERR_INVALID_OPTION`).
    public var uvWithoutBuiltInUV: CTAPStatus
    public var tokenUse: TokenUse
    /// `rp.icon` / `user.icon` not a text string: 2.0 §5.1 (a member of the entities, a URL)
    /// answers `CTAP2_ERR_CBOR_UNEXPECTED_TYPE`; 2.1 has no such member and ignores it.
    public var typeChecksEntityIcons: Bool

    /// CTAP 2.0, Proposed Standard, 2019-01-30.
    public static let ctap20 = CTAPRules(
        infoMembers: .ctap20,
        // 2.0 §5: authenticatorMakeCredential … authenticatorReset; the rest came with 2.1.
        withheldCommands: [
            .bioEnrollment, .credentialManagement, .selection, .largeBlobs, .config, .bioEnrollmentPreview,
            .credentialManagementPreview
        ],
        // 2.0 §5.5: subcommands 0x01–0x05.
        withheldPINSubcommands: [
            .getPinUvAuthTokenUsingUvWithPermissions, .getUVRetries, .getPinUvAuthTokenUsingPinWithPermissions
        ],
        withheldCredentialManagementSubcommands: [],
        legacyTokenPermissions: [.mc, .ga],
        pinUvAuthProtocols: [.one],
        missingPinProtocol: .pinAuthInvalid, unsupportedPinProtocol: .pinAuthInvalid,
        protectedMakeCredential: .pinRequired,
        rkInGetAssertion: .invalidOption, uvWithoutBuiltInUV: .unsupportedOption,
        tokenUse: .untilPowerCycle, typeChecksEntityIcons: true)

    /// The CTAP 2.1 review draft as `FIDO_2_1_PRE` keys implement it: CTAP 2.0 with the
    /// prototype commands credentialManagement (0x41) and bioEnrollment (0x40), authorised by
    /// getPinToken's pinToken; every status 2.0 answers is kept.
    public static let ctap21Preview: CTAPRules = {
        var rules = CTAPRules.ctap20
        rules.infoMembers = .ctap21Preview
        // The final command bytes 0x09 and 0x0A, and 2.1's selection, largeBlobs and config.
        rules.withheldCommands = [.bioEnrollment, .credentialManagement, .selection, .largeBlobs, .config]
        // No permissions yet (2.1 §6.5.5.7.2, §6.5.5.7.3 came later); getUVRetries (0x07) serves
        // the preview's fingerprint reader.
        rules.withheldPINSubcommands = [
            .getPinUvAuthTokenUsingUvWithPermissions, .getPinUvAuthTokenUsingPinWithPermissions
        ]
        rules.withheldCredentialManagementSubcommands = [.updateUserInformation]
        rules.legacyTokenPermissions = [.mc, .ga, .cm, .be]
        return rules
    }()

    /// CTAP 2.1, Proposed Standard, 2021-06-15.
    public static let ctap21 = CTAPRules(
        infoMembers: .ctap21,
        withheldCommands: [], withheldPINSubcommands: [], withheldCredentialManagementSubcommands: [],
        legacyTokenPermissions: [.mc, .ga],
        pinUvAuthProtocols: [.two, .one],
        missingPinProtocol: .missingParameter, unsupportedPinProtocol: .invalidParameter,
        protectedMakeCredential: .uvNotRequiredForNonDiscoverable,
        rkInGetAssertion: .unsupportedOption, uvWithoutBuiltInUV: .invalidOption,
        tokenUse: .permissionsAndTimers, typeChecksEntityIcons: false)

    /// CTAP 2.2: 2.1's rules (2.2 changes none passkeyd answers differently) and the getInfo
    /// members 2.2 adds.
    public static let ctap22: CTAPRules = {
        var rules = CTAPRules.ctap21
        rules.infoMembers = .ctap22
        return rules
    }()
}
