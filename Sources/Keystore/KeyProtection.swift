import Crypto
import CryptoExtras
import PasskeydMacros

/// scrypt cost parameters (RFC 7914 §2). Stored in the header, so a keystore
/// keeps the cost it was created with even if a later build changes the default.
@MemberwiseInit
public struct ScryptParameters: Sendable, Equatable {
    /// log2 of the CPU/memory cost N.
    public var logN: Int
    /// Block size r.
    public var r: Int
    /// Parallelism p.
    public var p: Int

    /// N = 2^17, r = 8, p = 1: 128 MiB and four times the work of the interactive-login
    /// setting RFC 7914 §2 suggests (2^15), paid once per daemon start (docs/keystore.md gives
    /// the measured cost); an offline guess at a stolen keystore's passphrase costs as much.
    /// Stores made at 2^15 are re-wrapped at this cost when they next open.
    public static let `default` = ScryptParameters(logN: 17, r: 8, p: 1)

    /// Whether deriving with these parameters takes less memory or work than with `other`,
    /// so a store made with them is re-wrapped at `other`'s cost when it opens.
    func costsLess(than other: ScryptParameters) -> Bool {
        (1 << logN) * r * p < (1 << other.logN) * other.r * other.p
    }

    /// Bounds accepted from a header: enough to reject a doctored header that would make
    /// the daemon allocate gigabytes or spin for minutes before it can even fail.
    var isAcceptable: Bool {
        (10...22).contains(logN) && (1...32).contains(r) && (1...16).contains(p)
            && 128 * r * p * (1 << logN) <= 1 << 30
    }

    func deriveKey(passphrase: String, salt: [UInt8]) throws -> SymmetricKey {
        try KDF.Scrypt.deriveKey(
            from: Array(passphrase.utf8), salt: salt, outputByteCount: 32,
            rounds: 1 << logN, blockSize: r, parallelism: p)
    }
}

/// How the data key is wrapped, as recorded in the header.
enum KeyProtection: Sendable, Equatable {
    /// Wrapped under the 32 random bytes of the key file.
    case keyFile
    /// Wrapped under scrypt(passphrase, salt).
    case passphrase(ScryptParameters, salt: [UInt8])

    static let keyFileName = "keyfile"
    static let scryptName = "scrypt"
    static let saltSize = 16

    var name: String {
        switch self {
        case .keyFile: return Self.keyFileName
        case .passphrase: return Self.scryptName
        }
    }

    /// The bytes bound into the data key's seal as associated data, so neither the
    /// mode nor the scrypt parameters can be swapped without the unwrap failing.
    var descriptor: [UInt8] {
        switch self {
        case .keyFile:
            return Array(Self.keyFileName.utf8)
        case .passphrase(let parameters, let salt):
            var bytes = Array(Self.scryptName.utf8)
            for value in [parameters.logN, parameters.r, parameters.p] {
                withUnsafeBytes(of: UInt32(value).bigEndian) { bytes += $0 }
            }
            return bytes + salt
        }
    }
}
