/// authenticatorGetInfo (CTAP 2.1 §6.4).
public struct GetInfoRequest: ParameterlessRequest, Hashable {
    public typealias Response = GetInfoResponse
    public static let command = CTAPCommand.getInfo
    public init() {}
}
