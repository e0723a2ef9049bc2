import CTAP
import PasskeydMacros

/// Which kind of security key the authenticator stands in for: what it advertises (protocols,
/// getInfo versions, options and members, PIN/UV auth protocols, extensions) and which rule
/// set its commands follow where the CTAP generations differ (docs/profiles.md). Commands consult
/// `rules`; nothing compares a profile's name.
@MemberwiseInit
public struct DeviceProfile: Sendable, Hashable, CustomStringConvertible {
    /// How `--profile` names it.
    public let name: String
    /// CTAPHID_MSG (CTAP1/U2F) and CTAPHID_CBOR (CTAP2), as INIT's capabilities report them.
    public let protocols: CTAPProtocols
    /// getInfo `versions` (CTAP 2.1 §6.4).
    public let versions: [String]
    /// The extensions offered (CTAP 2.1 §12), by identifier.
    public let extensions: Set<String>
    /// The CTAP2 rule set.
    public let rules: CTAPRules
    /// getInfo `transports` (CTAP 2.1 §6.4; WebAuthn L3 §5.8.4 names them): `usb` by default, as
    /// the socket stands in for USB HID; `--transport internal` presents a platform
    /// authenticator (getInfo option `plat` true), which a WebAuthn client reports with
    /// attachment "platform".
    public var transports: [String] = ["usb"]

    /// Whether it keeps discoverable credentials (getInfo option `rk`, CTAP 2.1 §6.4): false for a
    /// key without them (`--no-resident-keys`, Chrome's `hasResidentKey: false`), which refuses a
    /// makeCredential asking for one.
    public var residentKeys = true

    /// The same kind of key without discoverable credentials.
    public func withoutResidentKeys() -> DeviceProfile {
        var profile = self
        profile.residentKeys = false
        return profile
    }

    /// The transports `--transport` accepts (WebAuthn L3 §5.8.4, AuthenticatorTransport).
    public static let knownTransports = ["usb", "nfc", "ble", "smart-card", "hybrid", "internal"]

    /// The same kind of key, reached over `transport`.
    public func reached(over transport: String) -> DeviceProfile {
        var profile = self
        profile.transports = [transport]
        return profile
    }

    /// A platform authenticator: attached to the client, never moved to another (CTAP 2.1 §6.4 `plat`).
    public var isPlatform: Bool { transports == ["internal"] }

    /// The same kind of key without some of its extensions (`--without-extension`), as a test
    /// suite asks for a key that lacks largeBlob, credBlob, minPinLength or PRF (hmac-secret).
    /// nil when it names one the profile does not offer.
    public func without(extensions removed: Set<String>) -> DeviceProfile? {
        guard removed.isSubset(of: extensions) else { return nil }
        var profile = DeviceProfile(
            name: name, protocols: protocols, versions: versions, extensions: extensions.subtracting(removed),
            rules: rules)
        profile.transports = transports
        profile.residentKeys = residentKeys
        return profile
    }

    /// A U2F-only key: CTAPHID_MSG alone (NCBOR), so hosts fall back to U2F.
    public static let u2f = DeviceProfile(
        name: "u2f", protocols: .ctap1, versions: ["U2F_V2"], extensions: [], rules: .ctap20)
    /// A CTAP 2.0 key (Proposed Standard, 2019-01-30) that also speaks U2F.
    public static let fido20 = DeviceProfile(
        name: "fido2.0", protocols: [.ctap1, .ctap2], versions: ["U2F_V2", "FIDO_2_0"],
        extensions: [HMACSecret.identifier], rules: .ctap20)
    /// A key of the CTAP 2.1 review draft (`FIDO_2_1_PRE`, as YubiKey 5 firmware 5.2–5.4 reports):
    /// the prototype commands and the two extensions such keys offer.
    public static let fido21Preview = DeviceProfile(
        name: "fido2.1-pre", protocols: [.ctap1, .ctap2], versions: ["U2F_V2", "FIDO_2_0", "FIDO_2_1_PRE"],
        extensions: [CredProtect.identifier, HMACSecret.identifier], rules: .ctap21Preview)
    /// A CTAP 2.1 key that also speaks U2F: the default.
    public static let fido21 = DeviceProfile(
        name: "fido2.1", protocols: [.ctap1, .ctap2], versions: ["U2F_V2", "FIDO_2_0", "FIDO_2_1"],
        extensions: Set(ExtensionRegistry.standard.identifiers), rules: .ctap21)
    /// A CTAP 2.2 key that also speaks U2F.
    public static let fido22 = DeviceProfile(
        name: "fido2.2", protocols: [.ctap1, .ctap2], versions: ["U2F_V2", "FIDO_2_0", "FIDO_2_1", "FIDO_2_2"],
        extensions: Set(ExtensionRegistry.standard.identifiers), rules: .ctap22)

    /// Oldest generation first.
    public static let all: [DeviceProfile] = [.u2f, .fido20, .fido21Preview, .fido21, .fido22]

    /// The profile `--profile` / `PASSKEYD_PROFILE` names, if any.
    public init?(named name: String) {
        guard let profile = Self.all.first(where: { $0.name == name }) else { return nil }
        self = profile
    }

    public var description: String { name }

    public static func == (lhs: DeviceProfile, rhs: DeviceProfile) -> Bool { lhs.name == rhs.name }
    public func hash(into hasher: inout Hasher) { hasher.combine(name) }
}
