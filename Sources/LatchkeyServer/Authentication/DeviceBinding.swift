import Foundation

/// The device key the current request proved with its DPoP proof (the key's RFC 7638 thumbprint),
/// set by the edge for the request's task. Sessions are bound where they are born
/// (`SessionIssuer.newSession`), so no login path (wallet, Kratos-compatible, SSO, sign-up) can
/// open an unbound session for a request that proved a key.
public enum DeviceBinding {
    @TaskLocal public static var provenKey: String?
}

/// How a device known by its key is named in device links, sessions and tokens.
public enum DeviceKeyID {
    /// `jkt:` followed by the key's RFC 7638 thumbprint.
    public static let prefix = "jkt:"
}
