import Foundation

/// The profile of a registered wallet owner (`PDCustomer`).
public struct Customer: Codable, Sendable, Hashable {
    public var customerUri: String
    /// An alternate identifier for systems that cannot handle a URI.
    public var customerIdentification: String
    public var externalId: String?
    public var active: Bool
    public var firstName: String?
    public var lastName: String?
    /// The login: the registered email.
    public var username: String
    public var lastModifiedDate: Date
    public var contactInformation: ContactInformation
    public var additionalCustomerInformation: [String: String]?

    public init(customerUri: String, customerIdentification: String, externalId: String?, active: Bool, firstName: String?,
                lastName: String?, username: String, lastModifiedDate: Date, contactInformation: ContactInformation,
                additionalCustomerInformation: [String: String]?) {
        self.customerUri = customerUri
        self.customerIdentification = customerIdentification
        self.externalId = externalId
        self.active = active
        self.firstName = firstName
        self.lastName = lastName
        self.username = username
        self.lastModifiedDate = lastModifiedDate
        self.contactInformation = contactInformation
        self.additionalCustomerInformation = additionalCustomerInformation
    }
}
