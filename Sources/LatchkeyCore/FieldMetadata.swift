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
    public var storageRestricted: Bool?
    public var reverificationRequired: Bool?
    public var order: Int

    public init(key: String, name: String, required: Bool = false, minLength: Int = 0, maxLength: Int = 50,
                additionalDataValidations: [AdditionalDataValidation]? = nil, canBeUsedToCreate: Bool = true,
                updatesAllowed: Bool = true, reverificationRequired: Bool? = nil, order: Int,
                dataType: String = "NSString", value: String? = nil) {
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
        let length = value.count
        if length < minLength { throw .invalidField(field, "\(name) must have at least \(minLength) characters.") }
        if length > maxLength { throw .invalidField(field, "\(name) must have at most \(maxLength) characters.") }
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

    private static func matches(_ value: String, _ pattern: String) -> Bool {
        guard let regex = try? Regex(pattern) else { return false }
        return (try? regex.wholeMatch(in: value)) != nil
    }
}
