/// passkeydAttestationRoot (docs/vendor-commands.md): the test attestation root, no token needed.
public struct AttestationRootRequest: ParameterlessRequest, Hashable {
    public typealias Response = AttestationRootResponse
    public static let command = CTAPCommand.passkeydAttestationRoot
    public init() {}
}
