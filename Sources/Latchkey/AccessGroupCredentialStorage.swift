import Foundation

/// Where an item of ``AccessGroupItems`` is looked up.
public enum AccessGroupScope: Sendable, Hashable {
    /// In the storage's access group (the one shared with the app's extensions); in the app's
    /// default group when the storage names none.
    case group
    /// In another access group the app can see, by name.
    case other(String)
}

/// The raw items of one service of a storage, looked up in its access group or in another group
/// the app can see. `KeychainCredentialStorage` implements it over the Keychain; a test models it
/// in memory.
public protocol AccessGroupItems: Sendable {
    /// The storage's access group; `nil` when it names none (its items are in the app's default group).
    var accessGroup: String? { get }
    /// The groups other than ``accessGroup`` that hold an item under `key` (any key when `nil`).
    /// These may include groups shared with other apps (App Groups, keychain groups of a family of
    /// apps), whose items are theirs.
    /// - Throws: when the items cannot be read.
    func otherGroups(holding key: String?) throws -> [String]
    /// The item under `key` in `scope`.
    /// - Throws: when the items cannot be read (a Keychain locked before the first unlock).
    func data(for key: String, in scope: AccessGroupScope) throws -> Data?
    /// Writes `data` under `key` in `scope`; `nil` deletes it. Outside the storage's group items
    /// are only ever deleted.
    /// - Throws: when the item could not be written or deleted.
    func set(_ data: Data?, for key: String, in scope: AccessGroupScope) throws
    /// Adds `data` in the group only when the group holds nothing under `key`; answers what it
    /// holds afterwards.
    /// - Throws: when the item could not be read or written.
    func add(_ data: Data, for key: String) throws -> Data
    /// Moves the item under `key` from `group` into the storage's group.
    /// - Throws: when the item could not be moved.
    func moveIntoGroup(_ key: String, from group: String) throws
    /// Deletes every item of the service in `scope`.
    /// - Throws: when the items could not be deleted.
    func removeAll(in scope: AccessGroupScope) throws
}

/// A `CredentialStorage` over items kept in an access group, which takes up the items an earlier
/// version of the app kept in its own earlier location, its legacy groups. An app that adopts a
/// group shared with its extensions (`KeychainCredentialStorage(accessGroup:)`) would otherwise
/// find none of its customers' items: every customer would be signed out, lose quick login and
/// answer an MFA question again, and the phone would appear as a new device.
///
/// The legacy groups are the app's own: by default its app-ID group (`<prefix>.<bundle id>`, where
/// the items of an app that named no group and lists no `keychain-access-groups` are kept), or the
/// groups the app names. Other groups the app can see (App Groups, keychain groups shared with a
/// family of apps that use the same service) hold other apps' items, which are never moved or deleted.
///
/// At the first use of each key in this process, the item in the first legacy group that holds
/// one (in the order named) is moved into the group when the group holds none under that key;
/// every other legacy copy is deleted (one in the group was written since, by this version or an
/// extension, and is the newer), so a later delete in the group cannot bring an older one back.
/// Every key the SDK keeps (session, device token, device key, its certificate, statistics and
/// the items of earlier versions) goes through this.
public final class AccessGroupCredentialStorage: CredentialStorage, @unchecked Sendable {
    let items: any AccessGroupItems
    /// The groups named as legacy, in order; `nil`: the app-ID group of `bundleIdentifier`.
    let legacyAccessGroups: [String]?
    let bundleIdentifier: String?
    /// Serializes the calls, so two first uses of a key never move its item twice.
    private let lock = NSLock()
    /// The keys whose legacy items have been taken up in this process.
    private var settled: Set<String> = []

    /// - Parameters:
    ///   - items: the items, in the group and in the app's other groups.
    ///   - legacyAccessGroups: the groups where earlier versions of the app kept its items, the
    ///     first the one taken up when several hold an item; `nil`: the app-ID group, a group of
    ///     the form `<prefix>.<bundleIdentifier>`.
    ///   - bundleIdentifier: the app's bundle identifier, for the app-ID group.
    public init(items: any AccessGroupItems, legacyAccessGroups: [String]? = nil,
                bundleIdentifier: String? = Bundle.main.bundleIdentifier) {
        self.items = items
        self.legacyAccessGroups = legacyAccessGroups
        self.bundleIdentifier = bundleIdentifier
    }

    /// Whether `group` is one of the app's legacy groups: one named, or (when none are named) the
    /// app ID, a prefix without dots (the team or app ID prefix) followed by the bundle identifier.
    public func isLegacy(_ group: String) -> Bool {
        if let legacyAccessGroups { return legacyAccessGroups.contains(group) && group != items.accessGroup }
        guard let bundleIdentifier, !bundleIdentifier.isEmpty, group.hasSuffix("." + bundleIdentifier) else { return false }
        let prefix = group.dropLast(bundleIdentifier.count + 1)
        return !prefix.isEmpty && !prefix.contains(".") && group != items.accessGroup
    }

    /// The legacy groups among `found`, in the order named (the app-ID group stands alone).
    private func legacy(among found: [String]) -> [String] {
        let groups = found.filter { isLegacy($0) }
        guard let legacyAccessGroups else { return groups.sorted() }
        return legacyAccessGroups.filter { groups.contains($0) }
    }

    /// The value under `key` in the group, after taking up the legacy one.
    /// - Throws: the items' error (nothing is taken up then; the next call tries again).
    public func data(for key: String) throws -> Data? {
        try lock.withLock {
            try settle(key)
            return try items.data(for: key, in: .group)
        }
    }

    /// Writes (or with `nil` deletes) the value under `key` in the group, after taking up the legacy one.
    /// - Throws: the items' error.
    public func set(_ data: Data?, for key: String) throws {
        try lock.withLock {
            try settle(key)
            try items.set(data, for: key, in: .group)
        }
    }

    /// Adds the value in the group only when it holds none under `key` (after taking up the legacy
    /// one: the device key stored before the group was adopted is the one kept).
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

    /// Deletes every item of the service in the group and in the app's legacy groups; items of
    /// other groups (other apps' shared groups) stay. A storage that names no group deletes those
    /// of its legacy groups only: a query without a group would reach every group the app sees.
    /// - Throws: the items' error.
    public func removeAll() throws {
        try lock.withLock {
            if items.accessGroup != nil { try items.removeAll(in: .group) }
            let found = try items.otherGroups(holding: nil)
            for group in legacy(among: found) { try items.removeAll(in: .other(group)) }
        }
    }

    /// Takes up the legacy items under `key`, once per process. A storage that names no group has
    /// nothing to take up: its items are where earlier versions kept them.
    private func settle(_ key: String) throws {
        if settled.contains(key) { return }
        if items.accessGroup != nil {
            let found = try items.otherGroups(holding: key)
            var copies = legacy(among: found)
            if let first = copies.first, try items.data(for: key, in: .group) == nil {
                try items.moveIntoGroup(key, from: first)
                copies.removeFirst()
            }
            for group in copies { try items.set(nil, for: key, in: .other(group)) }
        }
        settled.insert(key)
    }
}
