import Foundation
import LatchkeyDomain
import LatchkeyCore

/// JSON Schema (2020-12, as OpenAPI 3.1 reads it) of the issuer's rules, one function per rule of
/// `LatchkeyCore` it states: what a schema admits, the rule accepts, and what it refuses, the
/// rule refuses (400 or 422 naming the field). Lengths count code points on both sides; patterns
/// are ECMA-262 expressions (the issuer's ICU expressions are written in as they are, anchored).
struct IssuerSchemas {
    typealias Schema = [String: Any]
    let issuer: IssuerSettings
    let metadata: ProfileMetadata

    /// No NUL: the text fields' edge rule (`NulCharacterGuard`).
    static var text: Schema { ["type": "string", "pattern": "^[^\\x00]*$"] }
    /// Any JSON without a NUL in its strings and keys: what may sit inside a text field.
    static var textJSON: Schema {
        ["anyOf": [["type": ["number", "boolean", "null"]], text,
                   ["type": "array", "items": ["$ref": "#/components/schemas/TextJSON"]],
                   ["type": "object", "propertyNames": ["pattern": "^[^\\x00]*$"],
                    "additionalProperties": ["$ref": "#/components/schemas/TextJSON"]]],
         "description": "JSON without NUL characters in its strings and keys."]
    }

    /// A schema nothing satisfies: a property that cannot be sent.
    static var refused: Schema { ["not": [String: Any]()] }

    /// One field's value by its metadata (`FieldMetadata.validate`), at creation or in an update.
    func field(_ rule: FieldMetadata, _ operation: FieldOperation, sealed: Bool = false) -> Schema {
        switch operation {
        case .create where !rule.canBeUsedToCreate:
            return Self.text.merging(["maxLength": 0, "description": "\(rule.name) cannot be set when creating a wallet."]) { $1 }
        case .update where !rule.updatesAllowed:
            return Self.refused.merging(["description": "\(rule.name) cannot be changed."]) { $1 }
        default: break
        }
        if sealed { return Self.sealed("the value of \(rule.name)") }
        var minimum = max(1, rule.minLength), maximum = rule.maxLength
        var patterns = rule.regex.map { [$0] } ?? []
        for extra in rule.additionalDataValidations ?? [] {
            if let min = extra.minLength { minimum = max(minimum, min) }
            if let max = extra.maxLength { maximum = min(maximum, max) }
            if let regex = extra.regex { patterns.append(regex) }
        }
        let value: Schema = ["type": "string", "minLength": minimum, "maxLength": maximum,
                             "pattern": patterns.isEmpty ? "^[^\\x00]{\(minimum),\(maximum)}$" : Self.pattern(patterns)]
        // An empty value is no value: refused when required (at creation unless a default fills it).
        let emptyAllowed = operation == .create ? !rule.required || rule.defaultValue != nil : !rule.required
        var schema = emptyAllowed ? ["type": "string", "anyOf": [["maxLength": 0], value]] : value
        schema["description"] = rule.name + (rule.defaultValue.map { " (default \($0))" } ?? "")
        return schema
    }

    /// One pattern that every one of `bodies` (the issuer's ICU expressions, written in as
    /// ECMA-262) matches whole, and without NUL: the first as the value,
    /// the others as lookaheads. One pattern rather than several in `allOf`, since generators
    /// draw from one and filter by the others, which expressions seldom meet by chance.
    static func pattern(_ bodies: [String]) -> String {
        let bodies = bodies.map(ecma)
        let main = bodies.first ?? "[^\\x00]*"
        return "^(?![\\s\\S]*\\x00)" + bodies.dropFirst().map { "(?=(?:" + $0 + ")$)" }.joined() + "(?:" + main + ")$"
    }

    /// An issuer's expression (held to the dialects' common part by `FieldMetadata.portabilityProblem`)
    /// as ECMA-262 reads it the way ICU does: `.` outside a class spelled out as ICU's "any
    /// character but a line terminator".
    static func ecma(_ regex: String) -> String {
        var result = "", inClass = false, escaped = false
        for character in regex {
            defer { escaped = !escaped && character == "\\" }
            if escaped { result.append(character); continue }
            switch character {
            case "[" where !inClass: inClass = true
            case "]" where inClass: inClass = false
            case "." where !inClass:
                result += "[^\\n\\u000b\\f\\r\\u0085\\u2028\\u2029]"
                continue
            default: break
            }
            result.append(character)
        }
        return result
    }

    /// `EmailAddress.isValid`: one `@`, 1–64 printable ASCII characters before it, and two or more
    /// dot-separated labels of letters, digits and inner hyphens after it.
    static let emailPattern = "[!-?A-~]{1,64}@" + label + "(?:\\." + label + ")+"
    private static let label = "[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?"

    /// The email at creation or in an update: its metadata and the address syntax.
    func email(_ operation: FieldOperation) -> Schema {
        let rule = userField(ProfileMetadata.Key.email)
        var schema = field(rule, operation)
        var value = schema["anyOf"].flatMap { ($0 as? [Schema])?.last } ?? schema
        value["pattern"] = Self.pattern([Self.emailPattern] + (rule.regex.map { [$0] } ?? [])
            + (rule.additionalDataValidations ?? []).compactMap(\.regex))
        if schema["anyOf"] != nil { schema["anyOf"] = [["maxLength": 0], value] } else { schema = value }
        return schema
    }

    func userField(_ key: String) -> FieldMetadata {
        ProfileMetadata.field(key, in: metadata.userProfile) ?? FieldMetadata(key: key, name: key, order: 0)
    }

    /// Whether a registration must carry the field: required, and no default fills it.
    static func mustBeSent(_ rule: FieldMetadata) -> Bool { rule.required && rule.defaultValue == nil }

    /// The address at creation (`RegistrationAddress`) or in an update (`AddressUpdate`, which
    /// replaces the stored one, so its required fields are in it).
    func address(_ operation: FieldOperation) -> Schema {
        var properties: Schema = [:], required: [String] = []
        for rule in metadata.addressInformation {
            guard let name = ProfileMetadata.addressProperties[rule.key] else { continue }
            properties[name] = field(rule, operation, sealed: rule.pciEncryptionRequired == true)
            if operation == .create ? Self.mustBeSent(rule) : rule.required { required.append(name) }
        }
        return Self.object(properties, required: required)
    }

    /// An object whose properties not required may also be `null`, which the server reads as absent.
    static func object(_ properties: Schema, required: [String], description: String? = nil) -> Schema {
        var nullable: Schema = [:]
        for (name, schema) in properties {
            nullable[name] = required.contains(name) ? schema : ["anyOf": [schema, ["type": "null"]]]
        }
        var object: Schema = ["type": "object", "properties": nullable, "required": required.sorted()]
        if let description { object["description"] = description }
        return object
    }

    /// Whether a registration must carry an address (a required field without default).
    var addressRequired: Bool { metadata.addressInformation.contains(where: Self.mustBeSent) }

    /// The additional customer information as a map (registration): at most 50 keys of 1–64
    /// characters, values up to 256, the issuer's keys by their metadata.
    var additionalInformation: Schema {
        var properties: Schema = [:]
        for rule in metadata.additionalCustomerInformation {
            properties[rule.key] = field(rule, .create, sealed: rule.pciEncryptionRequired == true)
        }
        return ["type": "object", "maxProperties": 50, "properties": properties, "allOf": roomForDefaults("maxProperties") { ["required": [$0]] },
                "required": metadata.additionalCustomerInformation.filter(Self.mustBeSent).map(\.key),
                "propertyNames": ["minLength": 1, "maxLength": 64, "pattern": "^[^\\x00]*$"],
                "additionalProperties": Self.text.merging(["maxLength": 256]) { $1 }]
    }

    /// The additional information of an update: a value replaces, `null` removes — except a
    /// required key's or one that cannot be changed.
    var additionalInformationUpdate: Schema {
        var properties: Schema = [:]
        for rule in metadata.additionalCustomerInformation {
            let value = field(rule, .update, sealed: rule.pciEncryptionRequired == true && rule.updatesAllowed)
            properties[rule.key] = rule.required || !rule.updatesAllowed ? value : ["anyOf": [value, ["type": "null"]]]
        }
        return ["type": "object", "maxProperties": 50, "properties": properties,
                "propertyNames": ["minLength": 1, "maxLength": 64, "pattern": "^[^\\x00]*$"],
                "additionalProperties": ["type": ["string", "null"], "maxLength": 256, "pattern": "^[^\\x00]*$"]]
    }

    /// The additional information as SSO registration's list of key–value pairs: each key's value
    /// by its metadata, each required key present.
    var additionalInformationList: Schema {
        let rules = metadata.additionalCustomerInformation
        // Inside the list every key and string is stored text, unknown ones too (`NulCharacterGuard`).
        var item: Schema = ["type": "object", "required": ["additionalCustomerInformationKey", "additionalCustomerInformationValue"],
                            "propertyNames": ["pattern": "^[^\\x00]*$"],
                            "additionalProperties": ["$ref": "#/components/schemas/TextJSON"],
                            "properties": ["additionalCustomerInformationKey": Self.text.merging(["minLength": 1, "maxLength": 64]) { $1 },
                                           "additionalCustomerInformationValue": Self.text.merging(["maxLength": 256]) { $1 }]]
        // A list cannot say which of its values is which key's before it is read: all are sealed
        // when any key is (`ProfileMetadata.pciFieldPointers`).
        if rules.contains(where: { $0.pciEncryptionRequired == true }) {
            edit(&item, "properties") { $0["additionalCustomerInformationValue"] = Self.sealed("every value, as a key of the list is sealed") }
        } else if !rules.isEmpty {
            item["allOf"] = rules.map { rule -> Schema in
                ["if": ["properties": ["additionalCustomerInformationKey": ["const": rule.key]]],
                 "then": ["properties": ["additionalCustomerInformationValue": field(rule, .create)]]]
            }
        }
        var schema: Schema = ["type": "array", "maxItems": 50, "items": item]
        let room = roomForDefaults("maxItems") { ["contains": ["properties": ["additionalCustomerInformationKey": ["const": $0]]]] }
        let present: [Schema] = rules.filter(Self.mustBeSent).map { ["contains": ["properties": ["additionalCustomerInformationKey": ["const": $0.key]]]] }
        if !(present + room).isEmpty { schema["allOf"] = present + room }
        return schema
    }

    /// The 50 keys are counted once the defaults are in: for each set of defaulted keys, one
    /// fewer key may be sent per key of the set that is not (`sent` says a key is in a request).
    /// Past six defaulted keys, 50 less all of them (stricter than the server, and said so).
    func roomForDefaults(_ limit: String, _ sent: (String) -> Schema) -> [Schema] {
        let keys = metadata.additionalCustomerInformation.filter { $0.canBeUsedToCreate && $0.defaultValue != nil }.map(\.key)
        guard !keys.isEmpty else { return [] }
        guard keys.count <= 6 else { return [[limit: 50 - keys.count]] }
        return (1..<(1 << keys.count)).map { mask -> Schema in
            let subset = keys.indices.filter { mask & (1 << $0) != 0 }.map { keys[$0] }
            return ["if": ["not": ["anyOf": subset.map(sent)]], "then": [limit: 50 - subset.count]]
        }
    }

    private func edit(_ schema: inout Schema, _ key: String, _ change: (inout Schema) -> Void) {
        var inner = schema[key] as? Schema ?? [:]
        change(&inner)
        schema[key] = inner
    }
}
