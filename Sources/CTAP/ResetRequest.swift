/// authenticatorReset (CTAP 2.1 §6.6).
public struct ResetRequest: ParameterlessRequest, Hashable {
    public typealias Response = StatusOnly
    public static let command = CTAPCommand.reset
    public init() {}
}
