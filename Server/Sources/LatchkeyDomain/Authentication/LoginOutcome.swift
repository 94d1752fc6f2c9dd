import Foundation

/// The device a request comes from (`Caller.device`): its id (the proven key's name, or
/// `X-Device-ID` where binding is optional), `X-Device-Type`, its label, and the key it proved.
public struct DeviceContext: Sendable, Equatable {
    public var deviceID: String?
    public var deviceType: String?
    /// The app's name for the device (`X-Device-ID`), kept with a new link.
    public var label: String?
    /// The RFC 7638 thumbprint of the device key the request proved: every session opened for
    /// it is bound to that key (`SessionIssuer`), so no login path can open an unbound one.
    public var provenKey: String?
    /// What the app says it runs, recorded with the device at each login.
    public var software: DeviceSoftware
    public init(deviceID: String?, deviceType: String? = nil, label: String? = nil, provenKey: String? = nil,
                software: DeviceSoftware = DeviceSoftware()) {
        self.software = software
        self.deviceID = deviceID
        self.deviceType = deviceType
        self.label = label
        self.provenKey = provenKey
    }
}

/// The app's `deviceTypeId`, `applicationVersion` and `paydiantSDKVersion` as its headers said
/// them: kept with the device (the latest login's) and shown in device lists.
public struct DeviceSoftware: Sendable, Equatable {
    public var deviceType: String?
    public var applicationVersion: String?
    public var sdkVersion: String?
    public init(deviceType: String? = nil, applicationVersion: String? = nil, sdkVersion: String? = nil) {
        self.deviceType = deviceType
        self.applicationVersion = applicationVersion
        self.sdkVersion = sdkVersion
    }
}

/// The result of a login: a session, or the MFA prompt of an unlinked device (the spec's 412).
public enum LoginOutcome: Sendable, Equatable {
    case authenticated(sessionToken: String, customerUri: String, additionalAttributes: [String: String])
    case mfaRequired(MFAPrompt)
}

/// A live session as `GET /v1/auth/session` describes it.
public struct SessionDescription: Sendable, Equatable {
    public var customerUri: String
    public var deviceID: String?
    public var createdAt: Date
    public var lastSeenAt: Date
    public var idleExpiresAt: Date
    public var expiresAt: Date
}
