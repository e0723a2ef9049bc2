import Foundation

/// The courier app's session on this device: who is signed in and the token the server issued,
/// in the demo's state folder (mode 600). The server decides whether it is still good.
struct CourierSessionFile: Sendable {
    struct Session: Codable, Sendable, Equatable {
        var username: String
        var token: String
    }

    let path: String

    func load() -> Session? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        return try? JSONDecoder().decode(Session.self, from: data)
    }

    func save(_ session: Session) {
        guard let data = try? JSONEncoder().encode(session) else { return }
        FileManager.default.createFile(atPath: path, contents: data, attributes: [.posixPermissions: 0o600])
    }

    func clear() {
        try? FileManager.default.removeItem(atPath: path)
    }
}
