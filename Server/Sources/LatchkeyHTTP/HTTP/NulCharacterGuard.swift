import Foundation
import LatchkeyCore
import LatchkeyDomain
import NIOCore

/// JSON text may escape a NUL character (`\u0000`), which PostgreSQL's `text` cannot store or
/// compare. The fields whose text the server stores or looks up (names, addresses, emails, phone
/// numbers, identifiers, MFA questions and the keys and values of the profile's maps) refuse it at
/// the edge with 400 naming the field, on every engine, before anything reads or writes the
/// database; the contract says so (`pattern: "^[^\\x00]*$"` on those properties). Secrets and
/// tokens are only hashed and may hold any character; unknown properties are ignored, as always.
package enum NulCharacterGuard {
    private static let escape = Array(#"\u0000"#.utf8)

    /// The properties whose text is stored or looked up (at any depth).
    package static let textFields: Set<String> = [
        "firstName", "lastName", "email", "phone", "externalId", "username", "identifier", "phoneNumber",
        "state", "country", "addressLine1", "addressLine2", "city", "zipCode", "first", "last", "question",
        "additionalCustomerInformation", "additionalCustomerInformationKey",
        "additionalCustomerInformationValue", "additionalDataKey", "identityProvider",
    ]

    /// Throws `invalid_field` for the first string (or key) of `body` that holds a NUL character.
    package static func check(_ body: ByteBuffer) throws {
        let bytes = body.readableBytesView
        // Cheap test first: almost every body has no such escape and is never parsed here.
        guard bytes.count >= escape.count, bytes.firstRange(of: escape) != nil else { return }
        guard let json = try? JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed]),
              let field = firstNul(in: json, path: []) else { return }
        // The decoding errors' form: `userProfile.firstName`, `items[2].name`.
        let name = field.isEmpty ? "body" : field.joined(separator: ".").replacingOccurrences(of: ".[", with: "[")
        throw DomainError.invalidField(name, "\(name) must not contain NUL characters.")
    }

    /// Maps whose keys are stored text (the MFA questions) and whose values are secrets (the answers).
    package static let secretMaps: Set<String> = ["mfaAnswers"]

    /// The path of the first text field holding a NUL; `checked` once inside one of `textFields`.
    private static func firstNul(in value: Any, path: [String], checked: Bool = false) -> [String]? {
        switch value {
        case let text as String:
            return checked && text.contains("\u{0}") ? path : nil
        case let object as [String: Any]:
            for key in object.keys.sorted() {
                if checked && key.contains("\u{0}") { return path }
                if secretMaps.contains(key), let map = object[key] as? [String: Any] {
                    if map.keys.contains(where: { $0.contains("\u{0}") }) { return path + [key] }
                    continue
                }
                let inside = checked || textFields.contains(key)
                if let found = firstNul(in: object[key]!, path: path + [key], checked: inside) { return found }
            }
            return nil
        case let array as [Any]:
            for (index, element) in array.enumerated() {
                if let found = firstNul(in: element, path: path + ["[\(index)]"], checked: checked) { return found }
            }
            return nil
        default:
            return nil
        }
    }
}
