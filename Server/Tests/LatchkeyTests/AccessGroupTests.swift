import Foundation
import Latchkey
import LatchkeyCore
import Synchronization
import Testing

/// A phone's Keychain as an app sees it, with access groups: every item is in exactly one group;
/// a query that names a group sees that group only, one that names none sees all the app's groups.
final class GroupedKeychain: Sendable {
    /// The app's default group (its app ID), where items written without a group go.
    static let appGroup = "TEAMID.com.example.wallet"
    static let shared = "TEAMID.com.example.wallet.shared"
    let items = Mutex<[String: [String: Data]]>([:])

    func items(in group: String) -> [String: Data] { items.withLock { $0[group] ?? [:] } }

    /// The items as a storage naming `group` sees them (`nil`: no group, as before an app adopted one).
    func view(group: String?) -> Items { Items(keychain: self, group: group) }

    struct Items: AccessGroupItems {
        let keychain: GroupedKeychain
        let group: String?
        /// The group a write without a group lands in, and the one a read without a group sees.
        var own: String { group ?? GroupedKeychain.appGroup }

        func data(for key: String, in scope: AccessGroupScope) throws -> Data? {
            // Without a group there is no outside: a storage naming none sees all its groups as one.
            if group == nil, scope == .outside { return nil }
            return keychain.items.withLock { items in
                switch scope {
                case .group: items[own]?[key]
                case .outside: items.filter { $0.key != own }.sorted { $0.key < $1.key }.lazy.compactMap { $0.value[key] }.first
                }
            }
        }

        func set(_ data: Data?, for key: String, in scope: AccessGroupScope) throws {
            keychain.items.withLock { items in
                switch scope {
                case .group: items[own, default: [:]][key] = data
                case .outside:
                    precondition(data == nil, "nothing is written outside the group")
                    for name in items.keys where name != own { items[name]?[key] = nil }
                }
            }
        }

        func add(_ data: Data, for key: String) throws -> Data {
            keychain.items.withLock { items in
                if let existing = items[own]?[key] { return existing }
                items[own, default: [:]][key] = data
                return data
            }
        }

        func moveIntoGroup(_ key: String) throws {
            guard group != nil else { return }
            try keychain.items.withLock { items in
                guard let from = items.keys.sorted().first(where: { $0 != own && items[$0]?[key] != nil }) else { return }
                guard items[own]?[key] == nil else { throw CocoaError(.fileWriteFileExists) }
                items[own, default: [:]][key] = items[from]?[key]
                items[from]?[key] = nil
            }
        }
    }
}

/// An app that adopts a shared access group (to share the session with its extensions) keeps its
/// customers' session, device token and device key: items stored before, outside the group, are
/// found and moved into it on first use.
@Suite struct AccessGroupTests {
    @Test func adoptingAnAccessGroupKeepsTheSessionAndTheDevice() async throws {
        let keychain = GroupedKeychain()
        try await withLiveServer(storage: AccessGroupCredentialStorage(items: keychain.view(group: nil))) { before, app in
            let customer = try await PhoneConditionsTests.signedIn(before, app)
            _ = try await before.authentication.loginByPIN("314159")   // a privileged change needs a knowledge factor
            try await before.authentication.generateDeviceAuthenticationToken(username: "grace@example.com", password: "cobol-rules-1959")
            let device = try await before.deviceThumbprint()
            #expect(keychain.items(in: GroupedKeychain.shared).isEmpty)

            let grouped = testClient(context: before.context,
                                     storage: AccessGroupCredentialStorage(items: keychain.view(group: GroupedKeychain.shared)))
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
        let storage = AccessGroupCredentialStorage(items: keychain.view(group: GroupedKeychain.shared))
        #expect(try await storage.data(for: "latchkey.session") == Data("new".utf8))
        try await storage.set(nil, for: "latchkey.session")
        #expect(try await storage.data(for: "latchkey.session") == nil)
        #expect(keychain.items(in: GroupedKeychain.appGroup).isEmpty)
        #expect(try await AccessGroupCredentialStorage(items: keychain.view(group: GroupedKeychain.shared))
            .data(for: "latchkey.session") == nil)
    }
}
