#if canImport(Security)
import Foundation
import Security

/// Keeps values in the Keychain as generic passwords of one service, on this device only, readable
/// after the first unlock (background refresh, push and prewarming run while the phone is locked).
///
/// Every query sets `kSecUseDataProtectionKeychain` (Apple: it affects macOS, Mac Catalyst
/// included, and other platforms ignore it, so it is safe everywhere): on a Mac the items live in
/// the data-protection keychain (iOS-style access control, no login keychain prompts), which needs an entitlement that gives the app a keychain access group
/// (`application-identifier` from a provisioning profile, `keychain-access-groups`, or App Groups):
/// an app without one gets ``KeychainError`` `-34018` (`errSecMissingEntitlement`) on every call,
/// with a message naming them. Command-line tools and tests without entitlements pass
/// ``FileCredentialStorage`` or ``MemoryCredentialStorage`` to `LatchkeyClient` instead.
public struct KeychainCredentialStorage: CredentialStorage {
    let service: String
    let accessGroup: String?
    /// The items, those kept outside `accessGroup` by an earlier version of the app taken up.
    private let items: AccessGroupCredentialStorage

    /// - Parameters:
    ///   - service: the items' `kSecAttrService`.
    ///   - accessGroup: a keychain access group shared with the app's extensions (e.g.
    ///     `"TEAMID.com.example.wallet.shared"`, listed in every target's `keychain-access-groups`
    ///     entitlement), so a widget or a notification extension uses the same session and device
    ///     key. `nil` keeps the items in the app's default group. Items an earlier version of the
    ///     app stored before it named a group are moved into it at their first use
    ///     (``AccessGroupCredentialStorage``), so adopting a group keeps the customers' sessions
    ///     and devices.
    public init(service: String = "latchkey", accessGroup: String? = nil) {
        self.service = service
        self.accessGroup = accessGroup
        self.items = AccessGroupCredentialStorage(items: KeychainItems(service: service, accessGroup: accessGroup))
    }

    /// The stored value. An item written with another accessibility by an earlier version (e.g.
    /// `WhenUnlocked…`, unreadable in the background while the phone is locked) is moved to
    /// after-first-unlock, this-device-only as it is read.
    /// - Throws: ``KeychainError`` when the Keychain refuses the read.
    public func data(for key: String) throws -> Data? { try items.data(for: key) }

    /// Updates the item in place and adds it only when there is none, so a failed write never
    /// loses the value it was replacing.
    /// - Throws: ``KeychainError`` when the Keychain refuses the write or the delete.
    public func set(_ data: Data?, for key: String) throws { try items.set(data, for: key) }

    /// Adds the item; when one exists already (`errSecDuplicateItem`) it is kept and returned.
    /// - Throws: ``KeychainError`` when the Keychain refuses the write or the read.
    public func add(_ data: Data, for key: String) throws -> Data { try items.add(data, for: key) }

    /// Deletes the item only if it still holds `expected` (read, compared, deleted).
    /// - Throws: ``KeychainError`` when the Keychain refuses the read or the delete.
    public func removeValue(for key: String, ifEqualTo expected: Data) throws -> Bool {
        try items.removeValue(for: key, ifEqualTo: expected)
    }

    /// Deletes every item of this storage's service (and access group), and those an earlier
    /// version kept outside the group.
    /// - Throws: ``KeychainError`` when the Keychain refuses the delete.
    public func removeAll() throws {
        let keychain = KeychainItems(service: service, accessGroup: accessGroup)
        try keychain.delete(keychain.query(nil, group: accessGroup))
        for group in try keychain.otherGroups(nil) { try keychain.delete(keychain.query(nil, group: group)) }
    }
}

/// The Keychain's generic passwords of one service, in `accessGroup` and in the app's other groups
/// (Apple, `kSecAttrAccessGroup`: an app's groups are its `keychain-access-groups`, its app ID and
/// its App Groups; a query that names no group searches all of them).
struct KeychainItems: AccessGroupItems {
    let service: String
    let accessGroup: String?

    static var accessibility: CFString { kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly }

    func data(for key: String, in scope: AccessGroupScope) throws -> Data? {
        switch scope {
        case .group: return try read(key, group: accessGroup)
        case .outside: return try otherGroups(key).first.flatMap { try read(key, group: $0) }
        }
    }

    func set(_ data: Data?, for key: String, in scope: AccessGroupScope) throws {
        guard scope == .group else {
            // Outside the group items are only ever deleted, in each group that holds one.
            for group in try otherGroups(key) { try delete(query(key, group: group)) }
            return
        }
        guard let data else { return try delete(query(key, group: accessGroup)) }
        let update: [String: Any] = [kSecValueData as String: data, kSecAttrAccessible as String: Self.accessibility]
        let updated = SecItemUpdate(query(key, group: accessGroup) as CFDictionary, update as CFDictionary)
        if updated == errSecSuccess { return }
        guard updated == errSecItemNotFound else { throw KeychainError(status: updated) }
        _ = try add(data, for: key)
    }

    func add(_ data: Data, for key: String) throws -> Data {
        var item = query(key, group: accessGroup)
        item[kSecValueData as String] = data
        item[kSecAttrAccessible as String] = Self.accessibility
        let status = SecItemAdd(item as CFDictionary, nil)
        if status == errSecSuccess { return data }
        guard status == errSecDuplicateItem, let existing = try read(key, group: accessGroup) else { throw KeychainError(status: status) }
        return existing
    }

    /// Changes the item's `kSecAttrAccessGroup` in place (`SecItemUpdate`); where the Keychain
    /// refuses that, copies it into the group and deletes the original.
    func moveIntoGroup(_ key: String) throws {
        guard let accessGroup, let from = try otherGroups(key).first else { return }
        let change: [String: Any] = [kSecAttrAccessGroup as String: accessGroup, kSecAttrAccessible as String: Self.accessibility]
        if SecItemUpdate(query(key, group: from) as CFDictionary, change as CFDictionary) == errSecSuccess { return }
        guard let data = try read(key, group: from) else { return }
        _ = try add(data, for: key)
        try delete(query(key, group: from))
    }

    /// The groups other than `accessGroup` that hold an item under `key` (any key when `nil`);
    /// none when the storage names no group (its queries already see every group).
    func otherGroups(_ key: String?) throws -> [String] {
        guard let accessGroup else { return [] }
        var search = query(key, group: nil)
        search[kSecReturnAttributes as String] = true
        search[kSecMatchLimit as String] = kSecMatchLimitAll
        var result: AnyObject?
        let status = SecItemCopyMatching(search as CFDictionary, &result)
        if status == errSecItemNotFound { return [] }
        guard status == errSecSuccess, let found = result as? [[String: Any]] else { throw KeychainError(status: status) }
        let groups = found.compactMap { $0[kSecAttrAccessGroup as String] as? String }.filter { $0 != accessGroup }
        return Array(Set(groups)).sorted()
    }

    /// The item's value in `group`, its accessibility moved to after-first-unlock when an earlier
    /// version wrote another (best effort: a phone locked now refuses it; the next read repeats it).
    private func read(_ key: String, group: String?) throws -> Data? {
        var search = query(key, group: group)
        search[kSecReturnData as String] = true
        search[kSecReturnAttributes as String] = true
        search[kSecMatchLimit as String] = kSecMatchLimitOne
        var result: AnyObject?
        let status = SecItemCopyMatching(search as CFDictionary, &result)
        if status == errSecItemNotFound { return nil }
        guard status == errSecSuccess, let item = result as? [String: Any] else { throw KeychainError(status: status) }
        if item[kSecAttrAccessible as String] as? String != Self.accessibility as String {
            _ = SecItemUpdate(query(key, group: group) as CFDictionary,
                              [kSecAttrAccessible as String: Self.accessibility] as CFDictionary)
        }
        return item[kSecValueData as String] as? Data
    }

    func delete(_ query: [String: Any]) throws {
        let status = SecItemDelete(query as CFDictionary)
        guard status == errSecSuccess || status == errSecItemNotFound else { throw KeychainError(status: status) }
    }

    /// The items of this service (under `key`, when given) in `group` (in every group of the app
    /// when `nil`).
    func query(_ key: String?, group: String?) -> [String: Any] {
        var query: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
                                    kSecUseDataProtectionKeychain as String: true]
        if let key { query[kSecAttrAccount as String] = key }
        if let group { query[kSecAttrAccessGroup as String] = group }
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
