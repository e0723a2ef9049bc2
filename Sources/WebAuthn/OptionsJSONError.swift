import Foundation
import PasskeydMacros

/// Why a WebAuthn JSON document (WebAuthn L3 §5.1.10, §5.1.11) could not be read, in the
/// document's own words: which member, what it must be. Never a Swift debug description.
@MemberwiseInit
public struct OptionsJSONError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The dictionary that was being read, e.g. `PublicKeyCredentialCreationOptionsJSON`.
    public let dictionary: String
    /// The member's path, e.g. `pubKeyCredParams[0].alg`; empty for the document itself.
    public let member: String
    /// What is wrong with it.
    public let problem: String

    public var description: String {
        member.isEmpty ? "The \(dictionary) \(problem)." : "\(dictionary): member '\(member)' \(problem)."
    }

    /// Decodes `T` from `data`, turning a `DecodingError` into the member and problem.
    public static func decode<T: Decodable>(_ type: T.Type, from data: Data) throws(OptionsJSONError) -> T {
        let name = String(describing: T.self)
        do {
            return try JSONDecoder().decode(type, from: data)
        } catch let error as DecodingError {
            throw OptionsJSONError(dictionary: name, error)
        } catch {
            throw OptionsJSONError(dictionary: name, member: "", problem: "could not be read")
        }
    }

    init(dictionary: String, _ error: DecodingError) {
        switch error {
        case .keyNotFound(let key, let context):
            self.init(dictionary: dictionary, member: Self.path(context.codingPath + [key]), problem: "is missing")
        case .typeMismatch(let type, let context):
            self.init(
                dictionary: dictionary, member: Self.path(context.codingPath), problem: "must be \(Self.jsonType(type))"
            )
        case .valueNotFound(let type, let context):
            self.init(
                dictionary: dictionary, member: Self.path(context.codingPath),
                problem: "is null; it must be \(Self.jsonType(type))")
        case .dataCorrupted(let context) where context.codingPath.isEmpty:
            self.init(dictionary: dictionary, member: "", problem: "is not valid JSON")
        case .dataCorrupted(let context):
            // The project's own decoders say what they expected ("not base64url"); Foundation's say more.
            let said = context.debugDescription
            let problem = said.hasPrefix("not ") ? "is \(said)" : "has a value that cannot be read"
            self.init(dictionary: dictionary, member: Self.path(context.codingPath), problem: problem)
        @unknown default:
            self.init(dictionary: dictionary, member: "", problem: "could not be read")
        }
    }

    /// `rp.id`, `pubKeyCredParams[0].alg`: the path as a page's author writes it.
    static func path(_ keys: [any CodingKey]) -> String {
        keys.reduce(into: "") { text, key in
            if let index = key.intValue, key.stringValue.hasPrefix("Index ") || key.stringValue == "\(index)" {
                text += "[\(index)]"
            } else {
                text += (text.isEmpty ? "" : ".") + key.stringValue
            }
        }
    }

    /// The JSON type a Swift type is read from.
    static func jsonType(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: return "a string"
        case is Bool.Type: return "a boolean"
        case is any BinaryInteger.Type, is Double.Type, is Float.Type: return "a number"
        default:
            let name = String(describing: type)
            if name.hasPrefix("Array<") || name.hasPrefix("[") { return "an array" }
            return "an object"
        }
    }
}
