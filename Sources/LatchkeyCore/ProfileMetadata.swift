/// The field metadata of the profile, contact and address objects, with the spec's keys and
/// default limits, so an app can build its forms and both sides validate the same way.
public struct ProfileMetadata: Codable, Sendable, Hashable {
    public var userProfile: [FieldMetadata]
    public var contactInformation: [FieldMetadata]
    public var addressInformation: [FieldMetadata]
    /// The issuer's own additional customer information keys (`additionalCustomerInformation`);
    /// other keys are accepted without metadata (1–64 characters, values up to 256).
    public var additionalCustomerInformation: [FieldMetadata]

    public init(userProfile: [FieldMetadata], contactInformation: [FieldMetadata], addressInformation: [FieldMetadata],
                additionalCustomerInformation: [FieldMetadata] = []) {
        self.userProfile = userProfile
        self.contactInformation = contactInformation
        self.addressInformation = addressInformation
        self.additionalCustomerInformation = additionalCustomerInformation
    }

    private enum CodingKeys: String, CodingKey {
        case userProfile, contactInformation, addressInformation, additionalCustomerInformation
    }

    /// Reads a server's metadata; one from before additional keys had metadata has none.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        userProfile = try container.decode([FieldMetadata].self, forKey: .userProfile)
        contactInformation = try container.decode([FieldMetadata].self, forKey: .contactInformation)
        addressInformation = try container.decode([FieldMetadata].self, forKey: .addressInformation)
        additionalCustomerInformation = try container.decodeIfPresent([FieldMetadata].self, forKey: .additionalCustomerInformation) ?? []
    }

    /// The groups by their name in the configuration (`issuer.fields.<group>`).
    public static let groupNames = ["userProfile", "contactInformation", "addressInformation", "additionalCustomerInformation"]

    /// A group by its name in the configuration.
    public subscript(group name: String) -> [FieldMetadata] {
        get {
            switch name {
            case "userProfile": userProfile
            case "contactInformation": contactInformation
            case "addressInformation": addressInformation
            default: additionalCustomerInformation
            }
        }
        set {
            switch name {
            case "userProfile": userProfile = newValue
            case "contactInformation": contactInformation = newValue
            case "addressInformation": addressInformation = newValue
            default: additionalCustomerInformation = newValue
            }
        }
    }

    /// Keys of the spec's `PDMetaData` defaults.
    public enum Key {
        public static let firstName = "FIRST_NAME", lastName = "LAST_NAME", email = "EMAIL"
        public static let mobileNumber = "MOBILE_NUMBER", mobilePhone = "MOBILE_PHONE", externalId = "EXTERNAL_ID"
        public static let state = "STATE", country = "COUNTRY", addressLine1 = "ADDRESS_LINE1"
        public static let addressLine2 = "ADDRESS_LINE2", city = "CITY", zipCode = "ZIP_CODE"
    }

    /// The spec's defaults. The email is the login, so registration requires it; names are required
    /// too (Latchkey's choice: the spec gives no metadata for them). The profile phone
    /// (`MOBILE_NUMBER`) can neither be set at creation nor updated, as the spec says.
    public static let `default` = ProfileMetadata(
        userProfile: [
            FieldMetadata(key: Key.firstName, name: "First Name", required: true, minLength: 1, order: 1),
            FieldMetadata(key: Key.lastName, name: "Last Name", required: true, minLength: 1, order: 2),
            FieldMetadata(key: Key.email, name: "Email", required: true, minLength: 3,
                          reverificationRequired: true, order: 3),
            FieldMetadata(key: Key.mobileNumber, name: "Mobile Number", canBeUsedToCreate: false,
                          updatesAllowed: false, order: 4),
            FieldMetadata(key: Key.externalId, name: "External Id", maxLength: 100, order: 5),
        ],
        contactInformation: [
            FieldMetadata(key: Key.email, name: "Email", reverificationRequired: true, order: 1),
            FieldMetadata(key: Key.mobilePhone, name: "Phone", order: 2),
        ],
        addressInformation: [
            FieldMetadata(key: Key.state, name: "State", order: 1),
            FieldMetadata(key: Key.country, name: "Country", order: 2),
            FieldMetadata(key: Key.addressLine1, name: "Address Line 1", order: 3),
            FieldMetadata(key: Key.addressLine2, name: "Address Line 2", order: 4),
            FieldMetadata(key: Key.city, name: "City", order: 5),
            FieldMetadata(key: Key.zipCode, name: "Zip Code", maxLength: 5,
                          additionalDataValidations: [AdditionalDataValidation(regex: "[0-9]{5}")], order: 6),
        ]
    )

    /// The metadata of a key in one group, if the group has it.
    public static func field(_ key: String, in group: [FieldMetadata]) -> FieldMetadata? {
        group.first { $0.key == key }
    }
}

extension ProfileMetadata {
    /// The address fields by their metadata key, as the request bodies name them.
    public static let addressProperties = [Key.state: "state", Key.country: "country", Key.addressLine1: "addressLine1",
                                           Key.addressLine2: "addressLine2", Key.city: "city", Key.zipCode: "zipCode"]

    /// Fields the issuer marks `pciEncryptionRequired`: where they travel sealed, as JSON pointers
    /// (RFC 6901) into each operation's request body. Only fields kept in the profile document
    /// may be marked (additional customer information and the address; `latchkey config check`
    /// refuses others). For SSO registration, whose additional information is a list, every value
    /// of the list travels sealed when any additional key is marked.
    /// The operations whose request body holds profile fields (and so may hold sealed ones).
    public static let profileOperations: Set<String> = ["registerNewUser", "updateUserProfile", "registerCustomer"]

    public var pciFieldPointers: [String: [String]] {
        let additional = additionalCustomerInformation.filter { $0.pciEncryptionRequired == true }.map { Self.escape($0.key) }
        let address = addressInformation.filter { $0.pciEncryptionRequired == true }.compactMap { Self.addressProperties[$0.key] }
        var pointers: [String: [String]] = [
            "registerNewUser": additional.map { "/userProfile/additionalCustomerInformation/" + $0 }
                + address.map { "/userProfile/addressInformation/" + $0 },
            "updateUserProfile": additional.map { "/additionalCustomerInformation/" + $0 } + address.map { "/addressInformation/" + $0 },
            "registerCustomer": (additional.isEmpty ? [] : ["/additionalCustomerInformation/*/additionalCustomerInformationValue"])
                + address.map { "/address/" + $0 },
        ]
        pointers = pointers.filter { !$0.value.isEmpty }
        return pointers
    }

    /// A key as one token of a JSON pointer (RFC 6901: `~` and `/` escaped).
    public static func escape(_ key: String) -> String {
        key.replacingOccurrences(of: "~", with: "~0").replacingOccurrences(of: "/", with: "~1")
    }
}

extension AddressInformation {
    /// A field by its property name (`zipCode`, …).
    public subscript(name: String) -> String? {
        get {
            switch name {
            case "state": state
            case "country": country
            case "addressLine1": addressLine1
            case "addressLine2": addressLine2
            case "city": city
            case "zipCode": zipCode
            default: nil
            }
        }
        set {
            switch name {
            case "state": state = newValue
            case "country": country = newValue
            case "addressLine1": addressLine1 = newValue
            case "addressLine2": addressLine2 = newValue
            case "city": city = newValue
            case "zipCode": zipCode = newValue
            default: break
            }
        }
    }
}
