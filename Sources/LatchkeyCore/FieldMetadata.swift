import Foundation

/// One extra rule of a field's metadata (`PDTenderTypeMetaDataAdditionalDataValidations`).
public struct AdditionalDataValidation: Codable, Sendable, Hashable {
    public var minLength: Int?
    public var maxLength: Int?
    public var regex: String?

    public init(minLength: Int? = nil, maxLength: Int? = nil, regex: String? = nil) {
        self.minLength = minLength
        self.maxLength = maxLength
        self.regex = regex
    }
}

/// The usage rules of one field (`PDMetaData`): whether it is required, its length limits,
/// extra validations, and whether it may be set at creation and changed by an update.
public struct FieldMetadata: Codable, Sendable, Hashable {
    public var key: String
    public var value: String?
    public var name: String
    public var dataType: String
    public var required: Bool
    public var minLength: Int
    public var maxLength: Int
    public var defaultValue: String?
    public var additionalDataValidations: [AdditionalDataValidation]?
    public var canBeUsedToCreate: Bool
    public var updatesAllowed: Bool
    /// The app never writes the value to disk or a cache.
    public var storageRestricted: Bool?
    /// A change needs verification, as the email's does.
    public var reverificationRequired: Bool?
    /// The value travels sealed (as a credential does) and is stored encrypted.
    public var pciEncryptionRequired: Bool?
    /// The whole value must match this regular expression (ICU syntax, `NSRegularExpression`, the
    /// same on the server and the phone).
    public var regex: String?
    public var order: Int

    public init(key: String, name: String, required: Bool = false, minLength: Int = 0, maxLength: Int = 50,
                additionalDataValidations: [AdditionalDataValidation]? = nil, canBeUsedToCreate: Bool = true,
                updatesAllowed: Bool = true, reverificationRequired: Bool? = nil, order: Int,
                dataType: String = "NSString", value: String? = nil, defaultValue: String? = nil, regex: String? = nil,
                storageRestricted: Bool? = nil, pciEncryptionRequired: Bool? = nil) {
        self.defaultValue = defaultValue
        self.regex = regex
        self.storageRestricted = storageRestricted
        self.pciEncryptionRequired = pciEncryptionRequired
        self.key = key
        self.value = value
        self.name = name
        self.dataType = dataType
        self.required = required
        self.minLength = minLength
        self.maxLength = maxLength
        self.additionalDataValidations = additionalDataValidations
        self.canBeUsedToCreate = canBeUsedToCreate
        self.updatesAllowed = updatesAllowed
        self.reverificationRequired = reverificationRequired
        self.order = order
    }
}

/// Whether a value is being set on a new record or changed on an existing one.
public enum FieldOperation: Sendable {
    case create
    case update
}

extension FieldMetadata {
    /// Checks one value against this metadata; `field` names it in the error (e.g. `userProfile.email`).
    public func validate(_ value: String?, field: String, operation: FieldOperation) throws(DomainError) {
        // At creation a missing value takes the default, as the server stores it.
        let value = operation == .create && canBeUsedToCreate && (value ?? "").isEmpty && defaultValue != nil ? defaultValue : value
        // An update that names the field changes it, an empty value too.
        if operation == .update, value != nil, !updatesAllowed { throw .invalidField(field, "\(name) cannot be changed.") }
        guard let value, !value.isEmpty else {
            if required, operation == .create { throw .invalidField(field, "\(name) is required.") }
            if required, operation == .update, value != nil { throw .invalidField(field, "\(name) must not be empty.") }
            return
        }
        switch operation {
        case .create where !canBeUsedToCreate:
            throw .invalidField(field, "\(name) cannot be set when creating a wallet.")
        case .update where !updatesAllowed:
            throw .invalidField(field, "\(name) cannot be changed.")
        default: break
        }
        // Lengths count Unicode code points, as JSON Schema's minLength and maxLength do.
        let length = value.unicodeScalars.count
        if length < minLength { throw .invalidField(field, "\(name) must have at least \(minLength) characters.") }
        if length > maxLength { throw .invalidField(field, "\(name) must have at most \(maxLength) characters.") }
        if let regex, !Self.matches(value, regex) { throw .invalidField(field, "\(name) is not in the expected format.") }
        for rule in additionalDataValidations ?? [] {
            if let min = rule.minLength, length < min {
                throw .invalidField(field, "\(name) must have at least \(min) characters.")
            }
            if let max = rule.maxLength, length > max {
                throw .invalidField(field, "\(name) must have at most \(max) characters.")
            }
            if let pattern = rule.regex, !Self.matches(value, pattern) {
                throw .invalidField(field, "\(name) is not in the expected format.")
            }
        }
    }

    /// What makes this metadata unusable: each problem's property and why (`latchkey config check`).
    public var problems: [(property: String, message: String)] {
        var found: [(String, String)] = []
        if name.isEmpty { found.append(("name", "Must not be empty.")) }
        if minLength < 0 { found.append(("minLength", "Must not be negative.")) }
        if maxLength < 1 || maxLength > 256 { found.append(("maxLength", "Must be between 1 and 256.")) }
        if minLength > maxLength { found.append(("minLength", "Must not be above maxLength (\(maxLength)).")) }
        if let regex, Self.expression(regex) == nil { found.append(("regex", "\"\(regex)\" is not a regular expression.")) }
        if let regex, let problem = Self.portabilityProblem(regex) { found.append(("regex", "\"\(regex)\": \(problem)")) }
        if required, !canBeUsedToCreate { found.append(("required", "A required field must be usable at creation.")) }
        if let value = defaultValue {
            if !canBeUsedToCreate { found.append(("defaultValue", "A field not usable at creation has no default.")) }
            do { try validate(value, field: "defaultValue", operation: .create) } catch {
                found.append(("defaultValue", "Breaks the field's own rules: \(error.message)"))
            }
        }
        for (index, rule) in (additionalDataValidations ?? []).enumerated() {
            let path = "additionalDataValidations[\(index)]"
            if let min = rule.minLength, let max = rule.maxLength, min > max {
                found.append((path + ".minLength", "Must not be above maxLength (\(max)).")) }
            if let regex = rule.regex, Self.expression(regex) == nil {
                found.append((path + ".regex", "\"\(regex)\" is not a regular expression.")) }
            if let regex = rule.regex, let problem = Self.portabilityProblem(regex) {
                found.append((path + ".regex", "\"\(regex)\": \(problem)")) }
        }
        return found
    }

    /// Whether the whole of `value` matches `pattern`. ICU's syntax (`NSRegularExpression`) on
    /// every platform, the server's and the phone's alike; a pattern that does not compile matches
    /// nothing (`latchkey config check` refuses it first).
    private static func matches(_ value: String, _ pattern: String) -> Bool {
        guard let expression = expression(pattern) else { return false }
        let range = NSRange(value.startIndex..., in: value)
        return expression.firstMatch(in: value, options: [.anchored], range: range).map { $0.range == range } ?? false
    }

    /// `pattern` compiled, anchored at both ends (`\A`, `\z`), or nil when it does not compile on
    /// its own or uses what the anchoring would change (`\Q` quoting, `(?x)` comments).
    static func expression(_ pattern: String) -> NSRegularExpression? {
        guard !pattern.contains("\\Q"), pattern.range(of: #"\(\?[a-zA-Z-]*x"#, options: .regularExpression) == nil,
              (try? NSRegularExpression(pattern: pattern)) != nil else { return nil }
        return try? NSRegularExpression(pattern: "\\A(?:" + pattern + ")\\z")
    }
}
