import Foundation
import LatchkeyCore

/// Where the SDK keeps what must survive the app (session, device token, device key):
/// Keychain on Apple platforms, a protected file on Linux, memory in tests.
///
/// The SDK surfaces every failure of these calls (`LatchkeyError.Kind.storage`): a sign-in that
/// could not be kept is not reported as done, a logout whose delete failed says so.
public protocol CredentialStorage: Sendable {
    /// The value kept under `key`, or `nil` when there is none.
    /// - Throws: when the storage cannot be read (a Keychain locked before the first unlock).
    func data(for key: String) async throws -> Data?
    /// Keeps `data` under `key`; `nil` deletes it.
    /// - Throws: when the value could not be written or deleted.
    func set(_ data: Data?, for key: String) async throws
    /// Keeps `data` under `key` only if `key` holds nothing; answers what `key` holds afterwards.
    /// - Throws: when the storage cannot be read or written.
    func add(_ data: Data, for key: String) async throws -> Data
    /// Deletes the value under `key` only if it is still `expected`; answers whether it did.
    /// Another process of the app sharing the storage (an extension, the app itself) may have
    /// replaced it since it was read, and its value must stay.
    /// - Throws: when the storage cannot be read or written.
    func removeValue(for key: String, ifEqualTo expected: Data) async throws -> Bool
}

/// An error a `CredentialStorage` throws that can say the device is locked: the storage cannot be
/// read until the phone is unlocked (or, for after-first-unlock items, until its first unlock after
/// a restart), so a value may be there although it cannot be read now. The SDK tells "locked" from
/// other failures by it (``AuthenticationClient/isAuthorizationTokenExist()``); `KeychainError` (Apple platforms)
/// conforms, and a storage of the app's own throws such an error for that case.
public protocol CredentialStorageError: Error {
    /// Whether the storage refused because the device is locked.
    var isDeviceLocked: Bool { get }
}

/// Keeps values in memory only.
public actor MemoryCredentialStorage: CredentialStorage {
    private var values: [String: Data] = [:]
    public init() {}
    public func data(for key: String) -> Data? { values[key] }
    public func set(_ data: Data?, for key: String) { values[key] = data }
    public func add(_ data: Data, for key: String) -> Data {
        if let existing = values[key] { return existing }
        values[key] = data
        return data
    }
    public func removeValue(for key: String, ifEqualTo expected: Data) -> Bool {
        guard values[key] == expected else { return false }
        values[key] = nil
        return true
    }
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

    public func add(_ data: Data, for key: String) throws -> Data {
        if let existing = try load()[key] { return existing }
        try set(data, for: key)
        return data
    }

    public func removeValue(for key: String, ifEqualTo expected: Data) throws -> Bool {
        guard try load()[key] == expected else { return false }
        try set(nil, for: key)
        return true
    }

    private func load() throws -> [String: Data] {
        guard let data = FileManager.default.contents(atPath: url.path) else { return [:] }
        return try JSONDecoder().decode([String: Data].self, from: data)
    }
}

extension CredentialStorage {
    /// Stores `data` only when `key` holds nothing, and answers what `key` holds afterwards: `data`,
    /// or the value that was already there. The device key is written this way, so a read that
    /// wrongly answered "nothing" never replaces the key the server knows. Storages that can do
    /// this atomically (the three of the SDK) implement it; this default reads, then writes.
    public func add(_ data: Data, for key: String) async throws -> Data {
        if let existing = try await self.data(for: key) { return existing }
        try await set(data, for: key)
        return data
    }

    /// Deletes the value under `key` only if it is still `expected`: reads, compares, deletes.
    /// The storages of the SDK that can do it atomically (memory, file) implement it; between this
    /// read and delete another process could still write (a window of one call, not of a launch).
    public func removeValue(for key: String, ifEqualTo expected: Data) async throws -> Bool {
        guard try await data(for: key) == expected else { return false }
        try await set(nil, for: key)
        return true
    }
}

/// The storage `LatchkeyClient` uses when the app names none: the Keychain where the `Security`
/// framework exists (what survives a relaunch: session, device token, device key), memory elsewhere.
public func defaultCredentialStorage() -> any CredentialStorage {
    #if canImport(Security)
    return KeychainCredentialStorage()
    #else
    return MemoryCredentialStorage()
    #endif
}
