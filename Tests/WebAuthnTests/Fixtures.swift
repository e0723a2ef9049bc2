import Foundation

/// Files under the repository's `Fixtures/webauthn/`, found from this source file's path.
enum Fixture {
    static func data(_ name: String) throws -> Data {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        return try Data(contentsOf: root.appendingPathComponent("Fixtures/webauthn").appendingPathComponent(name))
    }
}
