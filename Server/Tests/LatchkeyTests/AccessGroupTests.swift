import Foundation
import Latchkey
import LatchkeyCore
import Synchronization
import Testing

/// A phone's Keychain as an app sees it, with access groups: every item is in exactly one group;
/// a query that names a group sees that group only, one that names none sees all the app's groups.
final class GroupedKeychain: Sendable {
    /// The app's bundle identifier and its default group (its app ID), where items written without a group go.
    static let bundleIdentifier = "com.example.wallet"
    static let appGroup = "TEAMID.com.example.wallet"
    static let shared = "TEAMID.com.example.wallet.shared"
    /// A keychain group shared with a family of other apps, which use the same service.
    static let family = "TEAMID.com.example.family"
    let items = Mutex<[String: [String: Data]]>([:])

    func items(in group: String) -> [String: Data] { items.withLock { $0[group] ?? [:] } }

    /// The items as a storage naming `group` sees them (`nil`: no group, as before an app adopted one).
    func view(group: String?) -> Items { Items(keychain: self, accessGroup: group) }

    /// The storage the app uses: its items seen through `group`, its legacy groups taken up.
    func storage(group: String?, legacy: [String]? = nil) -> AccessGroupCredentialStorage {
        AccessGroupCredentialStorage(items: view(group: group), legacyAccessGroups: legacy,
                                     bundleIdentifier: Self.bundleIdentifier)
    }

    struct Items: AccessGroupItems {
        let keychain: GroupedKeychain
        let accessGroup: String?
        /// The group a write without a group lands in, and the one a read without a group sees.
        var own: String { accessGroup ?? GroupedKeychain.appGroup }

        func name(_ scope: AccessGroupScope) -> String {
            switch scope {
            case .group: own
            case .other(let group): group
            }
        }

        func otherGroups(holding key: String?) throws -> [String] {
            keychain.items.withLock { items in
                items.filter { group, held in
                    group != accessGroup && (key.map { held[$0] != nil } ?? !held.isEmpty)
                }.map(\.key).sorted()
            }
        }

        func data(for key: String, in scope: AccessGroupScope) throws -> Data? {
            keychain.items.withLock { $0[name(scope)]?[key] }
        }

        func set(_ data: Data?, for key: String, in scope: AccessGroupScope) throws {
            precondition(scope == .group || data == nil, "nothing is written outside the group")
            keychain.items.withLock { $0[name(scope), default: [:]][key] = data }
        }

        func add(_ data: Data, for key: String) throws -> Data {
            keychain.items.withLock { items in
                if let existing = items[own]?[key] { return existing }
                items[own, default: [:]][key] = data
                return data
            }
        }

        func moveIntoGroup(_ key: String, from group: String) throws {
            guard accessGroup != nil else { return }
            try keychain.items.withLock { items in
                guard items[own]?[key] == nil else { throw CocoaError(.fileWriteFileExists) }
                items[own, default: [:]][key] = items[group]?[key]
                items[group]?[key] = nil
            }
        }

        func removeAll(in scope: AccessGroupScope) throws {
            keychain.items.withLock { $0[name(scope)] = [:] }
        }
    }
}

/// An app that adopts a shared access group (to share the session with its extensions) keeps its
/// customers' session, device token and device key: items stored before, outside the group, are
/// found and moved into it on first use.
@Suite struct AccessGroupTests {
    @Test func adoptingAnAccessGroupKeepsTheSessionAndTheDevice() async throws {
        let keychain = GroupedKeychain()
        try await withLiveServer(storage: keychain.storage(group: nil)) { before, app in
            let customer = try await PhoneConditionsTests.signedIn(before, app)
            _ = try await before.authentication.loginByPIN("314159")   // a privileged change needs a knowledge factor
            try await before.authentication.generateDeviceAuthenticationToken(username: "grace@example.com", password: "cobol-rules-1959")
            let device = try await before.deviceThumbprint()
            #expect(keychain.items(in: GroupedKeychain.shared).isEmpty)

            let grouped = testClient(context: before.context,
                                     storage: keychain.storage(group: GroupedKeychain.shared))
            #expect(await grouped.authentication.state == .authenticated(customerUri: customer), "the session is found")
            #expect(try await grouped.deviceThumbprint() == device, "the device key is found: no new device")
            #expect(await grouped.authentication.isAuthorizationTokenExist())
            guard case .authenticated = try await grouped.authentication.loginWithDeviceAuthenticationToken() else {
                Issue.record("the device token is found and logs in, without an MFA question")
                return
            }
            let moved = keychain.items(in: GroupedKeychain.shared)
            #expect(Set(moved.keys).isSuperset(of: ["latchkey.session", "latchkey.deviceToken", "latchkey.deviceKey"]))
            #expect(keychain.items(in: GroupedKeychain.appGroup).isEmpty, "nothing left behind outside the group")
        }
    }

    /// An item written in the group since is newer than the one left outside it: that one is
    /// deleted, never moved over it, and a sign-out cannot bring it back.
    @Test func anOlderItemOutsideTheGroupNeverComesBack() async throws {
        let keychain = GroupedKeychain()
        keychain.items.withLock {
            $0[GroupedKeychain.appGroup] = ["latchkey.session": Data("old".utf8)]
            $0[GroupedKeychain.shared] = ["latchkey.session": Data("new".utf8)]
        }
        let storage = keychain.storage(group: GroupedKeychain.shared)
        #expect(try await storage.data(for: "latchkey.session") == Data("new".utf8))
        try await storage.set(nil, for: "latchkey.session")
        #expect(try await storage.data(for: "latchkey.session") == nil)
        #expect(keychain.items(in: GroupedKeychain.appGroup).isEmpty)
        #expect(try await keychain.storage(group: GroupedKeychain.shared)
            .data(for: "latchkey.session") == nil)
    }

    /// Other apps that share a keychain group with this one and use the same service keep their
    /// items: adopting a group takes up only the app's own (app-ID) items, and `removeAll()`
    /// deletes only the app's.
    @Test func anotherAppsSharedItemsAreNeitherMovedNorDeleted() async throws {
        let keychain = GroupedKeychain()
        let others = ["latchkey.session": Data("other app's session".utf8), "latchkey.deviceKey": Data("other app's key".utf8)]
        keychain.items.withLock {
            $0[GroupedKeychain.family] = others
            $0["group.com.example.family"] = others
            $0[GroupedKeychain.appGroup] = ["latchkey.deviceKey": Data("own key".utf8)]
        }
        let storage = keychain.storage(group: GroupedKeychain.shared)
        #expect(try await storage.data(for: "latchkey.session") == nil, "another app's session is not this app's")
        #expect(try await storage.data(for: "latchkey.deviceKey") == Data("own key".utf8))
        #expect(keychain.items(in: GroupedKeychain.family) == others)
        #expect(keychain.items(in: "group.com.example.family") == others)

        try storage.removeAll()
        #expect(keychain.items(in: GroupedKeychain.shared).isEmpty)
        #expect(keychain.items(in: GroupedKeychain.family) == others, "another app's items stay")
        #expect(keychain.items(in: "group.com.example.family") == others)

        // Without a group of its own, removeAll deletes in the app's default group only.
        keychain.items.withLock { $0[GroupedKeychain.appGroup] = ["latchkey.session": Data("own".utf8)] }
        try keychain.storage(group: nil).removeAll()
        #expect(keychain.items(in: GroupedKeychain.appGroup).isEmpty)
        #expect(keychain.items(in: GroupedKeychain.family) == others)
    }

    /// Named legacy groups: the first that holds an item is the one taken up, the others' copies
    /// deleted; the app-ID group is then not one of them.
    @Test func namedLegacyGroupsAreTakenUpInTheirOrder() async throws {
        let keychain = GroupedKeychain()
        keychain.items.withLock {
            $0["TEAMID.com.example.wallet.old"] = ["latchkey.session": Data("old group".utf8)]
            $0["TEAMID.com.example.wallet.older"] = ["latchkey.session": Data("older group".utf8)]
            $0[GroupedKeychain.appGroup] = ["latchkey.session": Data("app ID".utf8)]
        }
        let storage = keychain.storage(group: GroupedKeychain.shared,
                                       legacy: ["TEAMID.com.example.wallet.old", "TEAMID.com.example.wallet.older"])
        #expect(try await storage.data(for: "latchkey.session") == Data("old group".utf8))
        #expect(keychain.items(in: "TEAMID.com.example.wallet.older").isEmpty)
        #expect(keychain.items(in: GroupedKeychain.appGroup) == ["latchkey.session": Data("app ID".utf8)])
    }
}
