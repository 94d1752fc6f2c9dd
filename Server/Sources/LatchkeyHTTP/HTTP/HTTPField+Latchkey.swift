import HTTPTypes

/// The headers the server reads and writes beyond those HTTPTypes names.
extension HTTPField.Name {
    package static let requestID = Self("X-Request-ID")!
    package static let applicationSignature = Self("X-Application-Signature")!
    package static let deviceID = Self("X-Device-ID")!
    package static let deviceType = Self("X-Device-Type")!
    package static let appVersion = Self("X-App-Version")!
    package static let sdkVersion = Self("X-SDK-Version")!
    package static let xForwardedFor = Self("X-Forwarded-For")!
    package static let sessionToken = Self("X-Session-Token")!
    package static let dpop = Self("DPoP")!
    package static let dpopNonce = Self("DPoP-Nonce")!
}
