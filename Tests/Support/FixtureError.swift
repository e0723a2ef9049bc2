/// Why a fixture could not do what a test asked (not built, did not start, did not stop).
public struct FixtureError: Error, CustomStringConvertible {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }
}
