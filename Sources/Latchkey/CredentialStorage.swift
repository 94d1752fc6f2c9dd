import Foundation

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
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try JSONEncoder().encode(values).write(to: url, options: .atomic)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: url.path)
    }

    private func load() throws -> [String: Data] {
        guard let data = FileManager.default.contents(atPath: url.path) else { return [:] }
        return try JSONDecoder().decode([String: Data].self, from: data)
    }
}

#if canImport(Security)
import Security

/// Keeps values in the Keychain as generic passwords of one service, this device only.
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

    public func set(_ data: Data?, for key: String) throws {
        SecItemDelete(base(key) as CFDictionary)
        guard let data else { return }
        var item = base(key)
        item[kSecValueData as String] = data
        item[kSecAttrAccessible as String] = kSecAttrAccessibleWhenUnlockedThisDeviceOnly
        let status = SecItemAdd(item as CFDictionary, nil)
        guard status == errSecSuccess else { throw KeychainError(status: status) }
    }

    private func base(_ key: String) -> [String: Any] {
        [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service, kSecAttrAccount as String: key]
    }

    /// A Keychain call failed with this `OSStatus`.
    public struct KeychainError: Error { public let status: OSStatus }
}
#endif
