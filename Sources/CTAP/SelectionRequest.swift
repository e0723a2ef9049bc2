/// authenticatorSelection (CTAP 2.1 §6.9).
public struct SelectionRequest: ParameterlessRequest, Hashable {
    public typealias Response = StatusOnly
    public static let command = CTAPCommand.selection
    public init() {}
}
