import Foundation

/// The device a request comes from (`X-Device-ID`, `X-Device-Type`).
public struct DeviceContext: Sendable, Equatable {
    public var deviceID: String?
    public var deviceType: String?
    /// The app's name for the device (`X-Device-ID`), kept with a new link.
    public var label: String?
    public init(deviceID: String?, deviceType: String? = nil, label: String? = nil) {
        self.deviceID = deviceID
        self.deviceType = deviceType
        self.label = label
    }
}

/// The result of a login: a session, or the MFA prompt of an unlinked device (the spec's 412).
public enum LoginOutcome: Sendable, Equatable {
    case authenticated(sessionToken: String, customerUri: String, additionalAttributes: [String: String])
    case mfaRequired(question: String, challengeToken: String)
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
