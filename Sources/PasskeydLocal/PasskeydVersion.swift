/// passkeyd's one version: the INIT response's three device-version bytes (CTAP 2.1
/// §11.2.9.1.3), the STATUS reply, and what `passkeyd --version` and `passkeyctl --version` print.
public enum PasskeydVersion {
    public static let major: UInt8 = 0
    public static let minor: UInt8 = 1
    public static let build: UInt8 = 0
    /// `major.minor.build`.
    public static let text = "\(major).\(minor).\(build)"
}
