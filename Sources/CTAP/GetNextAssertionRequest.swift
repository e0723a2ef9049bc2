/// authenticatorGetNextAssertion (CTAP 2.1 §6.3): the caller's next account of its last getAssertion.
public struct GetNextAssertionRequest: ParameterlessRequest, Hashable {
    public typealias Response = GetAssertionResponse
    public static let command = CTAPCommand.getNextAssertion
    public init() {}
}
