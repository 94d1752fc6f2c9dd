import Foundation
import LatchkeyDomain
import LatchkeyCore

extension IssuerSchemas {
    /// `UserProfile` of `registerNewUser` (`EnrollmentRules.validateRegistration`).
    var registrationProfile: Schema {
        let K = ProfileMetadata.Key.self
        let properties: Schema = [
            "firstName": field(userField(K.firstName), .create), "lastName": field(userField(K.lastName), .create),
            "email": email(.create), "phone": field(userField(K.mobileNumber), .create),
            "externalId": field(userField(K.externalId), .create),
            "password": password, "passcode": passcode, "mfaAnswers": mfaAnswers,
            "addressInformation": ["$ref": "#/components/schemas/RegistrationAddress"],
            "additionalCustomerInformation": additionalInformation,
        ]
        var required = ["email", "passcode"]
        for (name, key) in [("firstName", K.firstName), ("lastName", K.lastName), ("externalId", K.externalId)]
        where Self.mustBeSent(userField(key)) { required.append(name) }
        if issuer.password.required { required.append("password") }
        if issuer.mfa.numberOfRequiredQuestions > 0 { required.append("mfaAnswers") }
        if addressRequired { required.append("addressInformation") }
        if metadata.additionalCustomerInformation.contains(where: Self.mustBeSent) { required.append("additionalCustomerInformation") }
        return Self.object(properties, required: required,
                           description: "PDUserProfile with this issuer's rules. The spec's confirmPassword and confirmPasscode "
                               + "may be sent too and must then equal password and passcode (400 naming them): JSON Schema cannot "
                               + "say that two values are equal, so this document leaves them out.")
    }

    /// `UserProfileUpdate` of `updateUserProfile` (`EnrollmentRules.validateUpdate`).
    var profileUpdate: Schema {
        let K = ProfileMetadata.Key.self
        let externalId = userField(K.externalId)
        let properties: Schema = [
            "firstName": field(userField(K.firstName), .update), "lastName": field(userField(K.lastName), .update),
            "email": email(.update), "phone": field(userField(K.mobileNumber), .update),
            "externalId": field(externalId, .update),
            "password": Self.refused.merging(["description": "Refused: use updateUserPassword."]) { $1 },
            "passcode": Self.refused.merging(["description": "Refused: use updateUserPasscode."]) { $1 },
            "mfaAnswers": mfaAnswers, "additionalCustomerInformation": additionalInformationUpdate,
            "addressInformation": ["$ref": "#/components/schemas/AddressUpdate"],
        ]
        // Every update replaces the external id: a required one is sent every time.
        return Self.object(properties, required: externalId.required && externalId.updatesAllowed ? ["externalId"] : [],
                           description: "PDUserProfile as an update, with this issuer's rules (see updateUserProfile). At most 50 "
                               + "additional keys once merged with the stored ones, which no schema of the request can say.")
    }

    /// `RegisterCustomerRequest` of SSO registration (`EnrollmentRules.validateCustomerRegistration`).
    var customerRegistration: Schema {
        let K = ProfileMetadata.Key.self
        let properties: Schema = [
            "nonce": ["type": "string", "minLength": 1, "maxLength": 256],
            "email": email(.create), "firstName": field(userField(K.firstName), .create),
            "lastName": field(userField(K.lastName), .create), "phone": field(userField(K.mobileNumber), .create),
            "externalId": field(userField(K.externalId), .create), "passcode": passcode,
            "address": ["$ref": "#/components/schemas/RegistrationAddress"],
            "mfaSecurityProfiles": mfaSecurityProfiles, "additionalCustomerInformation": additionalInformationList,
        ]
        var required = ["nonce", "email", "passcode", "mfaSecurityProfiles"]
        for (name, key) in [("firstName", K.firstName), ("lastName", K.lastName), ("externalId", K.externalId)]
        where Self.mustBeSent(userField(key)) { required.append(name) }
        if addressRequired { required.append("address") }
        if metadata.additionalCustomerInformation.contains(where: Self.mustBeSent) { required.append("additionalCustomerInformation") }
        return Self.object(properties, required: required, description: "PDRegisterCustomerRequest with this issuer's rules.")
    }
}
