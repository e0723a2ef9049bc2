import CBOR
import PasskeydMacros

/// Authenticator data (WebAuthn L3 §6.1): what every signature covers.
public struct AuthenticatorData: Sendable, Hashable {
    /// The flags byte (WebAuthn L3 §6.1, "flags").
    public struct Flags: OptionSet, Sendable, Hashable {
        public let rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }

        public static let userPresent = Flags(rawValue: 0x01)
        public static let userVerified = Flags(rawValue: 0x04)
        public static let backupEligible = Flags(rawValue: 0x08)
        public static let backedUp = Flags(rawValue: 0x10)
        public static let attestedCredentialData = Flags(rawValue: 0x40)
        public static let extensionData = Flags(rawValue: 0x80)
    }

    public var rpIDHash: [UInt8]
    public var flags: Flags
    public var signCount: UInt32
    public var attestedCredentialData: AttestedCredentialData?
    /// The authenticator extension outputs map, when the ED flag is set.
    public var extensions: CBORValue?

    /// The extension outputs by identifier (WebAuthn L3 §6.1), empty without the ED flag.
    public func extensionOutputs() throws(CTAPStatus) -> ExtensionMap {
        guard let extensions else { return ExtensionMap() }
        return try ExtensionMap(cbor: extensions)
    }

    /// Builds authenticator data; the AT and ED flags follow from what is present.
    public init(
        rpIDHash: [UInt8], flags: Flags, signCount: UInt32,
        attestedCredentialData: AttestedCredentialData? = nil, extensions: CBORValue? = nil
    ) {
        self.rpIDHash = rpIDHash
        var flags = flags.subtracting([.attestedCredentialData, .extensionData])
        if attestedCredentialData != nil { flags.insert(.attestedCredentialData) }
        if extensions != nil { flags.insert(.extensionData) }
        self.flags = flags
        self.signCount = signCount
        self.attestedCredentialData = attestedCredentialData
        self.extensions = extensions
    }

    public var bytes: [UInt8] {
        var out = rpIDHash
        out.append(flags.rawValue)
        out.append(contentsOf: signCount.bigEndianBytes)
        if let attestedCredentialData { out.append(contentsOf: attestedCredentialData.bytes) }
        if let extensions { out.append(contentsOf: extensions.encoded) }
        return out
    }

    /// Parses authenticator data; any inconsistency between the flags and the
    /// bytes present is `CTAP2_ERR_INVALID_CBOR`-class malformation (`.invalidParameter`).
    public init(bytes: [UInt8]) throws(CTAPStatus) {
        guard bytes.count >= 37 else { throw .invalidParameter }
        rpIDHash = Array(bytes[0..<32])
        flags = Flags(rawValue: bytes[32])
        signCount = UInt32(bigEndianBytes: bytes[33..<37])
        var rest = Array(bytes[37...])
        if flags.contains(.attestedCredentialData) {
            let (data, used) = try AttestedCredentialData.parse(rest)
            attestedCredentialData = data
            rest.removeFirst(used)
        } else {
            attestedCredentialData = nil
        }
        if flags.contains(.extensionData) {
            do { extensions = try CBORDecoder.decode(rest) } catch { throw .invalidParameter }
            guard extensions?.mapValue != nil else { throw .invalidParameter }
        } else {
            guard rest.isEmpty else { throw .invalidParameter }
            extensions = nil
        }
    }
}

/// Attested credential data (WebAuthn L3 §6.5.2): AAGUID, credential ID, public key.
@MemberwiseInit
public struct AttestedCredentialData: Sendable, Hashable {
    public var aaguid: [UInt8]
    public var credentialID: [UInt8]
    public var publicKey: COSEKey

    public var bytes: [UInt8] {
        var out = aaguid
        out.append(contentsOf: UInt16(credentialID.count).bigEndianBytes)
        out.append(contentsOf: credentialID)
        out.append(contentsOf: publicKey.cbor.encoded)
        return out
    }

    static func parse(_ bytes: [UInt8]) throws(CTAPStatus) -> (AttestedCredentialData, Int) {
        guard bytes.count >= 18 else { throw .invalidParameter }
        let idLength = Int(UInt16(bigEndianBytes: bytes[16..<18]))
        guard bytes.count >= 18 + idLength else { throw .invalidParameter }
        let keyStart = 18 + idLength
        let decoded: (value: CBORValue, length: Int)
        do { decoded = try CBORDecoder.decodePrefix(Array(bytes[keyStart...])) } catch { throw .invalidParameter }
        let data = AttestedCredentialData(
            aaguid: Array(bytes[0..<16]),
            credentialID: Array(bytes[18..<keyStart]),
            publicKey: try COSEKey(cbor: decoded.value))
        return (data, keyStart + decoded.length)
    }
}

extension FixedWidthInteger {
    var bigEndianBytes: [UInt8] {
        withUnsafeBytes(of: self.bigEndian) { Array($0) }
    }

    init(bigEndianBytes bytes: ArraySlice<UInt8>) {
        self = bytes.reduce(0) { $0 << 8 | Self($1) }
    }
}
