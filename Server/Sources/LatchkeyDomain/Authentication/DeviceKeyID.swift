import Foundation

/// How a device known by its key is named in device links, sessions and tokens.
public enum DeviceKeyID {
    /// `jkt:` followed by the key's RFC 7638 thumbprint.
    public static let prefix = "jkt:"
}
