import Foundation

/// The courier app's log (`courier.log` in the state folder): what happened and why, for
/// support. Only event names, usernames and error kinds go in; never a session token, a PIN
/// or a challenge.
struct CourierLog: Sendable {
    let path: String

    func record(_ event: String, _ fields: KeyValuePairs<String, String> = [:]) {
        let stamp = Date().formatted(.iso8601)
        let line = ([stamp, event] + fields.map { "\($0.key)=\($0.value)" }).joined(separator: " ") + "\n"
        if let handle = FileHandle(forWritingAtPath: path) {
            handle.seekToEndOfFile()
            handle.write(Data(line.utf8))
            try? handle.close()
        } else {
            FileManager.default.createFile(
                atPath: path, contents: Data(line.utf8), attributes: [.posixPermissions: 0o600])
        }
    }
}
