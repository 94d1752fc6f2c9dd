import Foundation
import LatchkeyCore

/// The issuer's changes to one field's metadata (`issuer.fields.<group>.<KEY>`): each property
/// given replaces the spec's default; a key of `additionalCustomerInformation` defines one of the
/// issuer's own fields.
public struct FieldOverride: Codable, Sendable, Equatable {
    public var name: String?
    public var required: Bool?
    public var minLength: Int?
    public var maxLength: Int?
    public var defaultValue: String?
    public var regex: String?
    public var additionalDataValidations: [AdditionalDataValidation]?
    public var order: Int?
    public var canBeUsedToCreate: Bool?
    public var updatesAllowed: Bool?
    public var reverificationRequired: Bool?
    public var storageRestricted: Bool?
    public var pciEncryptionRequired: Bool?

    public init() {}

    /// The settings an override may name (`latchkey config check` refuses others by their path).
    public static let properties: Set<String> = [
        "name", "required", "minLength", "maxLength", "defaultValue", "regex", "additionalDataValidations", "order",
        "canBeUsedToCreate", "updatesAllowed", "reverificationRequired", "storageRestricted", "pciEncryptionRequired",
    ]

    /// `base` with this override's properties.
    func applied(to base: FieldMetadata) -> FieldMetadata {
        var field = base
        if let name { field.name = name }
        if let required { field.required = required }
        if let minLength { field.minLength = minLength }
        if let maxLength { field.maxLength = maxLength }
        if let defaultValue { field.defaultValue = defaultValue }
        if let regex { field.regex = regex }
        if let additionalDataValidations { field.additionalDataValidations = additionalDataValidations }
        if let order { field.order = order }
        if let canBeUsedToCreate { field.canBeUsedToCreate = canBeUsedToCreate }
        if let updatesAllowed { field.updatesAllowed = updatesAllowed }
        if let reverificationRequired { field.reverificationRequired = reverificationRequired }
        if let storageRestricted { field.storageRestricted = storageRestricted }
        if let pciEncryptionRequired { field.pciEncryptionRequired = pciEncryptionRequired }
        return field
    }
}

extension IssuerSettings {
    /// The field metadata of this issuer: the spec's defaults with `fields` laid over them.
    /// - Throws: `ConfigurationError` naming `issuer.fields.<group>.<KEY>[.<property>]` for a
    ///   group or key the spec does not have, or metadata that cannot work (a bad expression, a
    ///   minimum above the maximum, a default that breaks its own rules).
    public func fieldMetadata(checking: Bool = true) throws -> ProfileMetadata {
        var metadata = ProfileMetadata.default
        for (group, overrides) in fields.sorted(by: { $0.key < $1.key }) {
            let path = "issuer.fields.\(group)"
            guard ProfileMetadata.groupNames.contains(group) else {
                throw ConfigurationError(key: path, message: "Unknown group: one of \(ProfileMetadata.groupNames.joined(separator: ", ")).")
            }
            var fields = metadata[group: group]
            for (key, override) in overrides.sorted(by: { $0.key < $1.key }) {
                // Only what the profile document holds is sealed in transit and encrypted at rest;
                // names, email, phone and external id are what the server looks up and shows.
                if override.pciEncryptionRequired == true, !["additionalCustomerInformation", "addressInformation"].contains(group) {
                    throw ConfigurationError(key: "\(path).\(key).pciEncryptionRequired",
                                             message: "Only additionalCustomerInformation and addressInformation fields can be.")
                }
                if let index = fields.firstIndex(where: { $0.key == key }) {
                    fields[index] = override.applied(to: fields[index])
                } else if group == "additionalCustomerInformation" {
                    // A key is a token of the JSON pointers that seal it: no `/`, `~` or `*`.
                    guard (1...64).contains(key.count), !key.contains(where: { "/~*".contains($0) }),
                          !key.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
                        throw ConfigurationError(key: "\(path).\(key)",
                                                 message: "Keys have 1 to 64 characters, none of / ~ * or a control character.")
                    }
                    fields.append(override.applied(to: FieldMetadata(key: key, name: key, maxLength: 256, order: fields.count + 1)))
                } else {
                    throw ConfigurationError(key: "\(path).\(key)", message: "Unknown field: one of "
                                             + fields.map(\.key).joined(separator: ", ") + ".")
                }
            }
            // Checked once, when the configuration is loaded; requests only merge (no expression compiled).
            if checking { try Self.requireWhatTheServerHonours(fields, group: group, path: path) }
            for field in fields where checking {
                if let problem = field.problems.first {
                    throw ConfigurationError(key: "\(path).\(field.key).\(problem.property)", message: problem.message)
                }
            }
            metadata[group: group] = fields.sorted { ($0.order, $0.key) < ($1.order, $1.key) }
        }
        return metadata
    }

    /// The email is the login and the profile phone is the verified phone of phone sign-up: the
    /// rules that make them so cannot be changed.
    private static func requireWhatTheServerHonours(_ fields: [FieldMetadata], group: String, path: String) throws {
        // An update replaces the external id and a sent address whole: a field that must be there
        // and cannot be sent would refuse every update.
        for field in fields where field.required && !field.updatesAllowed
            && (group == "addressInformation" || field.key == ProfileMetadata.Key.externalId) {
            throw ConfigurationError(key: "\(path).\(field.key).updatesAllowed",
                                     message: "A required field that an update replaces must be updatable.")
        }
        // The email is the login: a change is always verified by its link to the new address.
        if ["userProfile", "contactInformation"].contains(group),
           let email = ProfileMetadata.field(ProfileMetadata.Key.email, in: fields), email.reverificationRequired != true {
            throw ConfigurationError(key: "\(path).EMAIL.reverificationRequired",
                                     message: "The email is the login: its change is always verified.")
        }
        guard group == "userProfile" else { return }
        for field in fields {
            switch field.key {
            case ProfileMetadata.Key.email where !field.required || field.defaultValue != nil || !field.canBeUsedToCreate:
                throw ConfigurationError(key: "\(path).EMAIL", message: "The email is the login: required, usable at creation, no default.")
            case ProfileMetadata.Key.mobileNumber where field.canBeUsedToCreate || field.updatesAllowed || field.required:
                throw ConfigurationError(key: "\(path).MOBILE_NUMBER",
                                         message: "The profile phone is set by phone sign-up's verification: not at creation, not by updates.")
            default: break
            }
        }
    }
}
