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
    /// The items, those an earlier version of the app kept in its legacy groups taken up.
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
    ///   - legacyAccessGroups: where earlier versions of the app kept its items, the only groups
    ///     items are moved from (and that ``removeAll()`` clears besides `accessGroup`). `nil`: the
    ///     app-ID group (`<prefix>.<bundle id>`), the default group of an app that listed no
    ///     `keychain-access-groups`. An app whose earlier versions listed groups names the first of
    ///     them. Other groups the app can see (App Groups, groups shared with other apps using the
    ///     same service) are never touched: their items are other apps'.
    public init(service: String = "latchkey", accessGroup: String? = nil, legacyAccessGroups: [String]? = nil) {
        self.service = service
        self.accessGroup = accessGroup
        self.items = AccessGroupCredentialStorage(items: KeychainItems(service: service, accessGroup: accessGroup),
                                                  legacyAccessGroups: legacyAccessGroups)
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

    /// Deletes every item of this storage's service in its access group and in the app's legacy
    /// groups (without an access group: in the legacy groups only, the app-ID group by default);
    /// items of the service in other apps' shared groups stay.
    /// - Throws: ``KeychainError`` when the Keychain refuses the delete.
    public func removeAll() throws { try items.removeAll() }
}

/// The Keychain's generic passwords of one service, in `accessGroup` and in the app's other groups
/// (Apple, `kSecAttrAccessGroup`: an app's groups are its `keychain-access-groups`, its app ID and
/// its App Groups; a query that names no group searches all of them).
struct KeychainItems: AccessGroupItems {
    let service: String
    let accessGroup: String?

    static var accessibility: CFString { kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly }

    func data(for key: String, in scope: AccessGroupScope) throws -> Data? {
        try read(key, group: group(of: scope))
    }

    func set(_ data: Data?, for key: String, in scope: AccessGroupScope) throws {
        guard scope == .group else {
            // Outside the group items are only ever deleted.
            return try delete(query(key, group: group(of: scope)))
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
    func moveIntoGroup(_ key: String, from group: String) throws {
        guard let accessGroup else { return }
        let change: [String: Any] = [kSecAttrAccessGroup as String: accessGroup, kSecAttrAccessible as String: Self.accessibility]
        if SecItemUpdate(query(key, group: group) as CFDictionary, change as CFDictionary) == errSecSuccess { return }
        guard let data = try read(key, group: group) else { return }
        _ = try add(data, for: key)
        try delete(query(key, group: group))
    }

    func removeAll(in scope: AccessGroupScope) throws {
        // Never a query without a group: it would delete the service's items in every group the app sees.
        guard let group = group(of: scope) else { return }
        try delete(query(nil, group: group))
    }

    /// The groups other than `accessGroup` that hold an item under `key` (any key when `nil`).
    func otherGroups(holding key: String?) throws -> [String] {
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

    private func group(of scope: AccessGroupScope) -> String? {
        switch scope {
        case .group: return accessGroup
        case .other(let name): return name
        }
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
public struct KeychainError: CredentialStorageError, CustomStringConvertible {
    public let status: OSStatus

    /// `errSecInteractionNotAllowed`: the device is locked, or has not been unlocked since it started.
    public var isDeviceLocked: Bool { status == errSecInteractionNotAllowed }

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
