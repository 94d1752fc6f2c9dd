import Foundation

/// Where an item of ``AccessGroupItems`` is looked up.
public enum AccessGroupScope: Sendable, Equatable {
    /// In the storage's access group (the one shared with the app's extensions).
    case group
    /// In any other group of the app: where an earlier version of the app kept its items before it
    /// named the group (its default group).
    case outside
}

/// The raw items of a storage that names an access group, looked up in the group or outside it.
/// `KeychainCredentialStorage` implements it over the Keychain; a test models it in memory.
public protocol AccessGroupItems: Sendable {
    /// The item under `key` in `scope` (outside the group: the first found).
    /// - Throws: when the items cannot be read (a Keychain locked before the first unlock).
    func data(for key: String, in scope: AccessGroupScope) throws -> Data?
    /// Writes `data` under `key` in `scope`; `nil` deletes it (outside the group: every copy).
    /// - Throws: when the item could not be written or deleted.
    func set(_ data: Data?, for key: String, in scope: AccessGroupScope) throws
    /// Adds `data` in the group only when the group holds nothing under `key`; answers what it
    /// holds afterwards.
    /// - Throws: when the item could not be read or written.
    func add(_ data: Data, for key: String) throws -> Data
    /// Moves the item under `key` from outside the group into it.
    /// - Throws: when the item could not be moved.
    func moveIntoGroup(_ key: String) throws
}

/// A `CredentialStorage` over items kept in an access group, which takes up the items an earlier
/// version of the app kept outside it. An app that adopts a group shared with its extensions
/// (`KeychainCredentialStorage(accessGroup:)`) would otherwise find none of its customers' items:
/// every customer would be signed out, lose quick login and answer an MFA question again, and the
/// phone would appear as a new device.
///
/// At the first use of each key in this process, an item outside the group is moved into it when
/// the group holds none under that key, and deleted when the group holds one (that one was
/// written since, by this version or an extension, and is the newer), so a later delete in the
/// group cannot bring the older one back. Every key the SDK keeps (session, device token, device
/// key, its certificate, statistics and the items of earlier versions) goes through this.
public final class AccessGroupCredentialStorage: CredentialStorage, @unchecked Sendable {
    let items: any AccessGroupItems
    /// Serializes the calls, so two first uses of a key never move its item twice.
    private let lock = NSLock()
    /// The keys whose items outside the group have been taken up in this process.
    private var settled: Set<String> = []

    /// - Parameter items: the items, in the group and outside it.
    public init(items: any AccessGroupItems) {
        self.items = items
    }

    /// The value under `key` in the group, after taking up the one outside it.
    /// - Throws: the items' error (nothing is taken up then; the next call tries again).
    public func data(for key: String) throws -> Data? {
        try lock.withLock {
            try settle(key)
            return try items.data(for: key, in: .group)
        }
    }

    /// Writes (or with `nil` deletes) the value under `key` in the group, after taking up the one outside it.
    /// - Throws: the items' error.
    public func set(_ data: Data?, for key: String) throws {
        try lock.withLock {
            try settle(key)
            try items.set(data, for: key, in: .group)
        }
    }

    /// Adds the value in the group only when it holds none under `key` (after taking up the one
    /// outside it: the device key stored before the group was adopted is the one kept).
    /// - Throws: the items' error.
    public func add(_ data: Data, for key: String) throws -> Data {
        try lock.withLock {
            try settle(key)
            return try items.add(data, for: key)
        }
    }

    /// Deletes the value under `key` in the group only if it is still `expected`.
    /// - Throws: the items' error.
    public func removeValue(for key: String, ifEqualTo expected: Data) throws -> Bool {
        try lock.withLock {
            try settle(key)
            guard try items.data(for: key, in: .group) == expected else { return false }
            try items.set(nil, for: key, in: .group)
            return true
        }
    }

    /// Takes up the item outside the group under `key`, once per process.
    private func settle(_ key: String) throws {
        if settled.contains(key) { return }
        if try items.data(for: key, in: .outside) != nil {
            if try items.data(for: key, in: .group) == nil {
                try items.moveIntoGroup(key)
            } else {
                try items.set(nil, for: key, in: .outside)
            }
        }
        settled.insert(key)
    }
}
