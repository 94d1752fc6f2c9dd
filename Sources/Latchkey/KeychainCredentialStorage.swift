#if canImport(Security)
import Foundation
import Security

/// Keeps values in the Keychain as generic passwords of one service, on this device only, readable
/// after the first unlock (background refresh, push and prewarming run while the phone is locked).
///
/// On macOS the items live in the data-protection keychain (iOS-style access control, no login
/// keychain prompts), which needs an entitlement that gives the app a keychain access group
/// (`application-identifier` from a provisioning profile, `keychain-access-groups`, or App Groups):
/// an app without one gets ``KeychainError`` `-34018` (`errSecMissingEntitlement`) on every call,
/// with a message naming them. Command-line tools and tests without entitlements pass
/// ``FileCredentialStorage`` or ``MemoryCredentialStorage`` to `LatchkeyClient` instead.
public struct KeychainCredentialStorage: CredentialStorage {
    let service: String
    let accessGroup: String?

    /// - Parameters:
    ///   - service: the items' `kSecAttrService`.
    ///   - accessGroup: a keychain access group shared with the app's extensions (e.g.
    ///     `"TEAMID.com.example.wallet.shared"`, listed in every target's `keychain-access-groups`
    ///     entitlement), so a widget or a notification extension uses the same session and device
    ///     key. `nil` keeps the items in the app's default group.
    public init(service: String = "latchkey", accessGroup: String? = nil) {
        self.service = service
        self.accessGroup = accessGroup
    }

    /// The stored value. An item written with another accessibility by an earlier version (e.g.
    /// `WhenUnlocked…`, unreadable in the background while the phone is locked) is moved to
    /// after-first-unlock, this-device-only as it is read.
    /// - Throws: ``KeychainError`` when the Keychain refuses the read.
    public func data(for key: String) throws -> Data? {
        var query = base(key)
        query[kSecReturnData as String] = true
        query[kSecReturnAttributes as String] = true
        query[kSecMatchLimit as String] = kSecMatchLimitOne
        var result: AnyObject?
        let status = SecItemCopyMatching(query as CFDictionary, &result)
        if status == errSecItemNotFound { return nil }
        guard status == errSecSuccess, let item = result as? [String: Any] else { throw KeychainError(status: status) }
        if item[kSecAttrAccessible as String] as? String != Self.accessibility as String {
            // Best effort: a phone locked right now refuses the update; the next read repeats it.
            _ = SecItemUpdate(base(key) as CFDictionary, [kSecAttrAccessible as String: Self.accessibility] as CFDictionary)
        }
        return item[kSecValueData as String] as? Data
    }

    /// Updates the item in place and adds it only when there is none, so a failed write never
    /// loses the value it was replacing.
    /// - Throws: ``KeychainError`` when the Keychain refuses the write or the delete.
    public func set(_ data: Data?, for key: String) throws {
        guard let data else {
            let status = SecItemDelete(base(key) as CFDictionary)
            guard status == errSecSuccess || status == errSecItemNotFound else { throw KeychainError(status: status) }
            return
        }
        let update: [String: Any] = [kSecValueData as String: data, kSecAttrAccessible as String: Self.accessibility]
        let updated = SecItemUpdate(base(key) as CFDictionary, update as CFDictionary)
        if updated == errSecSuccess { return }
        guard updated == errSecItemNotFound else { throw KeychainError(status: updated) }
        _ = try add(data, for: key)
    }

    /// Adds the item; when one exists already (`errSecDuplicateItem`) it is kept and returned.
    /// - Throws: ``KeychainError`` when the Keychain refuses the write or the read.
    public func add(_ data: Data, for key: String) throws -> Data {
        var item = base(key)
        item[kSecValueData as String] = data
        item[kSecAttrAccessible as String] = Self.accessibility
        let status = SecItemAdd(item as CFDictionary, nil)
        if status == errSecSuccess { return data }
        guard status == errSecDuplicateItem, let existing = try self.data(for: key) else { throw KeychainError(status: status) }
        return existing
    }

    /// Deletes every item of this storage's service (and access group).
    /// - Throws: ``KeychainError`` when the Keychain refuses the delete.
    public func removeAll() throws {
        let status = SecItemDelete(base(nil) as CFDictionary)
        guard status == errSecSuccess || status == errSecItemNotFound else { throw KeychainError(status: status) }
    }

    static var accessibility: CFString { kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly }

    private func base(_ key: String?) -> [String: Any] {
        var query: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service]
        if let key { query[kSecAttrAccount as String] = key }
        if let accessGroup { query[kSecAttrAccessGroup as String] = accessGroup }
        #if os(macOS)
        query[kSecUseDataProtectionKeychain as String] = true
        #endif
        return query
    }
}

/// A Keychain call failed with this `OSStatus`.
public struct KeychainError: Error, CustomStringConvertible {
    public let status: OSStatus

    public var description: String {
        switch status {
        case errSecMissingEntitlement:
            return "The Keychain refused the call (-34018, errSecMissingEntitlement): the app has no keychain access "
                + "group. The data-protection keychain needs an entitlement that gives one: application-identifier "
                + "(from a provisioning profile), keychain-access-groups (listing any accessGroup passed to "
                + "KeychainCredentialStorage) or App Groups. Sign the app with one, or give LatchkeyClient a "
                + "FileCredentialStorage or MemoryCredentialStorage."
        case errSecInteractionNotAllowed:
            return "The Keychain cannot be read now (-25308, errSecInteractionNotAllowed): the device is locked, or "
                + "has not been unlocked since it started."
        default:
            let text = SecCopyErrorMessageString(status, nil) as String? ?? "unknown error"
            return "The Keychain refused the call (\(status)): \(text)"
        }
    }
}
#endif
