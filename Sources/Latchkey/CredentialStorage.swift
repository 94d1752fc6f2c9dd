import Foundation
import LatchkeyCore

/// Where the SDK keeps what must survive the app (session, device token, device key):
/// Keychain on Apple platforms, a protected file on Linux, memory in tests.
public protocol CredentialStorage: Sendable {
    func data(for key: String) async throws -> Data?
    func set(_ data: Data?, for key: String) async throws
}

/// Keeps values in memory only.
public actor MemoryCredentialStorage: CredentialStorage {
    private var values: [String: Data] = [:]
    public init() {}
    public func data(for key: String) -> Data? { values[key] }
    public func set(_ data: Data?, for key: String) { values[key] = data }
}

/// Keeps values in one JSON file readable only by its owner (mode 0600).
public actor FileCredentialStorage: CredentialStorage {
    private let url: URL
    public init(url: URL) { self.url = url }

    public func data(for key: String) throws -> Data? { try load()[key] }

    public func set(_ data: Data?, for key: String) throws {
        var values = try load()
        values[key] = data
        // Owner-only from the first byte (a new 0600 file renamed over the old one), never chmodded afterwards.
        try PrivateFile.replace(url.path, contents: try JSONEncoder().encode(values))
    }

    private func load() throws -> [String: Data] {
        guard let data = FileManager.default.contents(atPath: url.path) else { return [:] }
        return try JSONDecoder().decode([String: Data].self, from: data)
    }
}

/// The storage `LatchkeyClient` uses when the app names none: the Keychain where the `Security`
/// framework exists (what survives a relaunch: session, device token, device key), memory elsewhere.
public func defaultCredentialStorage() -> any CredentialStorage {
    #if canImport(Security)
    let storage = KeychainCredentialStorage()
    storage.clearIfNewInstallation()
    return storage
    #else
    return MemoryCredentialStorage()
    #endif
}

#if canImport(Security)
import Security

/// Keeps values in the Keychain as generic passwords of one service, on this device only, readable
/// after the first unlock (background refresh, push and prewarming run while the phone is locked).
public struct KeychainCredentialStorage: CredentialStorage {
    let service: String
    public init(service: String = "latchkey") { self.service = service }

    public func data(for key: String) throws -> Data? {
        var query = base(key)
        query[kSecReturnData as String] = true
        query[kSecMatchLimit as String] = kSecMatchLimitOne
        var result: AnyObject?
        let status = SecItemCopyMatching(query as CFDictionary, &result)
        if status == errSecItemNotFound { return nil }
        guard status == errSecSuccess else { throw KeychainError(status: status) }
        return result as? Data
    }

    /// Updates the item in place and adds it only when there is none, so a failed write never
    /// loses the value it was replacing.
    public func set(_ data: Data?, for key: String) throws {
        guard let data else {
            let status = SecItemDelete(base(key) as CFDictionary)
            guard status == errSecSuccess || status == errSecItemNotFound else { throw KeychainError(status: status) }
            return
        }
        let update: [String: Any] = [kSecValueData as String: data,
                                     kSecAttrAccessible as String: kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly]
        let updated = SecItemUpdate(base(key) as CFDictionary, update as CFDictionary)
        if updated == errSecSuccess { return }
        guard updated == errSecItemNotFound else { throw KeychainError(status: updated) }
        var item = base(key)
        item.merge(update) { $1 }
        let status = SecItemAdd(item as CFDictionary, nil)
        guard status == errSecSuccess else { throw KeychainError(status: status) }
    }

    /// Keychain items outlive an app's deletion; a new installation must not inherit the previous
    /// one's session or device key. A marker in the app's defaults (which deletion does remove)
    /// tells a first launch.
    func clearIfNewInstallation() {
        let marker = "latchkey.installed.\(service)"
        guard !UserDefaults.standard.bool(forKey: marker) else { return }
        var query: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service]
        #if os(macOS)
        query[kSecUseDataProtectionKeychain as String] = true
        #endif
        SecItemDelete(query as CFDictionary)
        UserDefaults.standard.set(true, forKey: marker)
    }

    private func base(_ key: String) -> [String: Any] {
        var query: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
                                    kSecAttrAccount as String: key]
        #if os(macOS)
        // The iOS-style keychain on macOS: access control like iOS, no login-keychain prompts.
        query[kSecUseDataProtectionKeychain as String] = true
        #endif
        return query
    }

    /// A Keychain call failed with this `OSStatus`.
    public struct KeychainError: Error { public let status: OSStatus }
}
#endif
