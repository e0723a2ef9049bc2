import CBOR

/// What a pinUvAuthToken may be used for (CTAP 2.1 §6.5.5.7, "pinUvAuthToken permissions").
///
/// The raw value is kept whole so an authenticator can see bits it does not know
/// and refuse them, rather than have them silently dropped here.
public struct PinUvAuthTokenPermissions: OptionSet, CBORMember, Sendable, Hashable {
    public let rawValue: UInt64

    public init(rawValue: UInt64) { self.rawValue = rawValue }

    /// authenticatorMakeCredential.
    public static let makeCredential = Self(rawValue: 0x01)
    /// authenticatorGetAssertion.
    public static let getAssertion = Self(rawValue: 0x02)
    /// authenticatorCredentialManagement.
    public static let credentialManagement = Self(rawValue: 0x04)
    /// authenticatorBioEnrollment.
    public static let bioEnrollment = Self(rawValue: 0x08)
    /// authenticatorLargeBlobs writes.
    public static let largeBlobWrite = Self(rawValue: 0x10)
    /// authenticatorConfig.
    public static let authenticatorConfiguration = Self(rawValue: 0x20)
    /// Read-only credential management with the persistent token (CTAP 2.2 §6.5.5.7).
    public static let persistentCredentialManagementReadOnly = Self(rawValue: 0x40)

    /// The spec's abbreviations, for code that follows its tables.
    public static let mc = makeCredential
    public static let ga = getAssertion
    public static let cm = credentialManagement
    public static let be = bioEnrollment
    public static let lbw = largeBlobWrite
    public static let acfg = authenticatorConfiguration
    public static let pcmr = persistentCredentialManagementReadOnly
}

extension PinUvAuthTokenPermissions {
    /// An unsigned integer, every bit kept.
    public init(cbor: CBORValue) throws(CTAPStatus) { self.init(rawValue: try UInt64(cbor: cbor)) }
    public var cbor: CBORValue { .unsigned(rawValue) }
}
