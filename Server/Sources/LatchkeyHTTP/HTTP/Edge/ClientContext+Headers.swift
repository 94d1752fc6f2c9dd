import HTTPTypes
import LatchkeyCore
import LatchkeyDomain

extension ClientContext {
    /// The app context headers of a request (the spec's `PDPaydiantContext`, as `EdgeHeaders` read them), checked, and its
    /// address, and the languages of `Accept-Language`. With `requiresAppSignature` (the wallet API) a valid `X-Application-Signature`, the
    /// API key of the wallet API, is required, and `X-Device-ID` must be a sane label.
    /// - Throws: `DomainError(.invalidAppSignature)` without a valid signature where it is required;
    ///   `invalid_field` naming the header for a device id that looks like a proven key's, or a
    ///   device type or version that is not short printable ASCII.
    package init(headers read: EdgeHeaders, requiresAppSignature: Bool, clientIP: String) throws {
        self.init(applicationSignature: read.applicationSignature, deviceID: read.deviceID, deviceLabel: read.deviceID,
                  deviceType: read.deviceType, appVersion: read.appVersion, sdkVersion: read.sdkVersion, clientIP: clientIP)
        languages = LanguagePreference(acceptLanguage: read.acceptLanguage)
        if requiresAppSignature {
            guard let signature = applicationSignature, AppContextHeader.isUUID(signature) else {
                // Without the API key of the wallet API (the contract's `applicationSignature`
                // security scheme) the caller is unauthenticated.
                throw DomainError(.invalidAppSignature, field: "X-Application-Signature")
            }
            if let deviceID, !AppContextHeader.isValidDeviceLabel(deviceID) {
                throw DomainError.invalidField("X-Device-ID", "X-Device-ID must have 1 to 128 characters, none a control character.")
            }
        }
        // Kept with the device and shown in device lists and consoles: short and printable.
        for (name, value) in [(HTTPField.Name.deviceType, read.deviceType), (.appVersion, read.appVersion), (.sdkVersion, read.sdkVersion)] {
            if let value, !AppContextHeader.isValid(value) {
                throw DomainError.invalidField(name.rawName, "\(name.rawName) must have 1 to 64 printable ASCII characters.")
            }
        }
        if deviceID?.hasPrefix(DeviceKeyID.prefix) == true {
            // Only a proof names a device by its key; a header that looks like one would impersonate it.
            throw DomainError.invalidField("X-Device-ID", "X-Device-ID must not start with \"\(DeviceKeyID.prefix)\".")
        }
    }
}
