#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
import Latchkey
import LatchkeyCore
import LatchkeyDomain
import LatchkeyServer
import Synchronization
import Testing

/// What a wallet app meets on real phones: clocks minutes off, concurrent first calls,
/// reinstalls, Keychains locked or refusing writes, no network at logout, a key that cannot be
/// restored. Each through the SDK's injectable storage, clock and transport, against a real server.
@Suite struct PhoneConditionsTests {
    /// Registers Grace, verifies her email and logs in by nonce on `sdk`.
    static func signedIn(_ sdk: LatchkeyClient, _ app: LatchkeyApplication) async throws -> String {
        let registered = try await sdk.enrollment.registerNewUser(sampleProfile())
        try await AuthenticationClientTests.verifyEmail(app, server: sdk.context.serverURL)
        _ = try await sdk.authentication.loginByNonce(registered.nonce)
        return registered.customerUri
    }

    /// A phone whose clock is ten minutes fast logs in, and one whose clock jumps back five minutes
    /// while logged in stays logged in: a proof refused for its time is signed again on the
    /// server's time (its `Date`), and only the session's own refusal signs out.
    @Test func aClockMinutesOffNeitherBlocksLoginNorSignsOut() async throws {
        let clock = SettableClock()
        clock.set(offBy: 600)
        try await withLiveServer(now: clock.now) { sdk, app in
            let customer = try await Self.signedIn(sdk, app)
            #expect(await sdk.authentication.state == .authenticated(customerUri: customer))
            clock.set(offBy: -300)
            let session = try await sdk.authentication.currentSession()
            #expect(session.customerUri == customer)
            #expect(await sdk.authentication.state == .authenticated(customerUri: customer))
        }
    }

    /// The session's own refusal (revoked on the server) does sign out.
    @Test func aRevokedSessionSignsOut() async throws {
        try await withLiveServer { sdk, app in
            let customer = try await Self.signedIn(sdk, app)
            let userID = String(customer.split(separator: ":").last!)
            try await app.store.revokeSessions(userID: userID, except: nil, deviceID: nil, now: Date())
            let refused = await failure { _ = try await sdk.authentication.currentSession() }
            #expect(refused?.code == .notLoggedIn)
            #expect(await sdk.authentication.state == .loggedOut)
        }
    }

    /// Concurrent first calls create one device key between them, written add-only.
    @Test func concurrentFirstCallsCreateOneKey() async throws {
        let storage = PhoneStorage()
        await storage.configure { $0.readDelay = .milliseconds(20) }
        let sdk = testClient(context: LatchkeyContext(serverURL: URL(string: "http://127.0.0.1:9")!,
                                                      applicationSignature: signature, deviceID: "d"), storage: storage)
        let thumbprints = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<8 { group.addTask { try await sdk.deviceThumbprint() } }
            return try await group.reduce(into: Set<String>()) { $0.insert($1) }
        }
        #expect(thumbprints.count == 1)
        #expect(await storage.adds == 1)
    }

    /// A read that wrongly answers "no key" never replaces the key the server knows.
    @Test func aSpuriousMissKeepsTheStoredKey() async throws {
        let storage = PhoneStorage()
        let context = LatchkeyContext(serverURL: URL(string: "http://127.0.0.1:9")!, applicationSignature: signature, deviceID: "d")
        let original = try await testClient(context: context, storage: storage).deviceThumbprint()
        await storage.configure { $0.spuriousMisses = ["latchkey.deviceKey"] }
        let relaunched = try await testClient(context: context, storage: storage).deviceThumbprint()
        #expect(relaunched == original)
    }

    /// The first launch after a reinstall drops the earlier session but keeps the device key: the
    /// user logs in again with the PIN, without an MFA question.
    @Test func aReinstallSignsOutButKeepsTheDevice() async throws {
        let storage = PhoneStorage()
        try await withLiveServer(storage: storage) { sdk, app in
            _ = try await Self.signedIn(sdk, app)
            let key = try await sdk.deviceThumbprint()
            let kept = LatchkeyClient(context: sdk.context, storage: storage, reinstall: .off)
            #expect(await kept.authentication.state != .loggedOut, "no reinstall: the session stays")

            let container = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: container) }
            let detection = ReinstallDetection.markerFile(in: container)
            // Launched in the background before the first unlock: nothing is decided, nothing dropped.
            await storage.configure { $0.failingReads = 1 }
            let reinstalled = LatchkeyClient(context: sdk.context, storage: storage, reinstall: detection)
            #expect(await reinstalled.authentication.state == .unknown)
            #expect(await storage.session() != nil)
            #expect(!FileManager.default.fileExists(atPath: container.path))
            // Unlocked: a first launch, the earlier installation's session goes.
            #expect(await reinstalled.authentication.state == .loggedOut)
            #expect(await storage.session() == nil)
            #expect(try await reinstalled.deviceThumbprint() == key)
            guard case .authenticated = try await reinstalled.authentication.loginByPIN("314159") else {
                Issue.record("the device is still linked: the PIN logs in")
                return
            }
            let relaunched = LatchkeyClient(context: sdk.context, storage: storage, reinstall: detection)
            if case .authenticated = await relaunched.authentication.state {} else {
                Issue.record("marked: the next launch is no first launch and keeps the session")
            }
        }
    }

    /// A read refused before the first unlock is `.unknown`, not `.loggedOut`; the later read is
    /// published. Sessions of earlier versions (two items) are read and rewritten as one.
    @Test func aFailedReadIsUnknownAndTheNextReadIsPublished() async throws {
        let storage = PhoneStorage(["latchkey.session": Data("token".utf8),
                                    "latchkey.customerUri": Data("urn:latchkey:customer:1".utf8)])
        await storage.configure { $0.failingReads = 1 }
        let client = testClient(context: LatchkeyContext(serverURL: URL(string: "http://127.0.0.1:9")!,
                                                         applicationSignature: signature, deviceID: "d"), storage: storage)
        let states = await client.authentication.authenticationStateChanges()
        #expect(await client.authentication.state == .authenticated(customerUri: "urn:latchkey:customer:1"))
        var seen: [AuthenticationState] = []
        for await state in states {
            seen.append(state)
            if seen.count == 2 { break }
        }
        #expect(seen == [.unknown, .authenticated(customerUri: "urn:latchkey:customer:1")])
        #expect(await storage.session()?.token == "token")
        #expect(await storage.values["latchkey.customerUri"] == nil)
    }

    /// A sign-in while the stored session is still being read is not overwritten by that read.
    @Test func aSignInDuringTheLoadWins() async throws {
        let storage = PhoneStorage()
        try await withLiveServer(storage: storage) { sdk, app in
            let registered = try await sdk.enrollment.registerNewUser(sampleProfile())
            try await AuthenticationClientTests.verifyEmail(app, server: sdk.context.serverURL)
            let stale = try StoredSessionFixture.item(token: "stale-token", customerUri: "urn:latchkey:customer:stale")
            try await storage.set(stale, for: "latchkey.session")
            let relaunched = testClient(context: sdk.context, storage: storage)
            await storage.hold(firstReadOf: "latchkey.session")
            let load = Task { await relaunched.authentication.state }
            try await Task.sleep(for: .milliseconds(50))
            Task {
                try await Task.sleep(for: .milliseconds(300))
                await storage.release()
            }
            _ = try await relaunched.authentication.loginByNonce(registered.nonce)
            _ = await load.value
            #expect(await relaunched.authentication.state == .authenticated(customerUri: registered.customerUri))
            #expect(await storage.session()?.customerUri == registered.customerUri)
        }
    }

    /// A session that cannot be stored is not reported as a login; the session is one item.
    @Test func aSignInThatCannotBeKeptFails() async throws {
        let storage = PhoneStorage()
        try await withLiveServer(storage: storage) { sdk, app in
            let registered = try await sdk.enrollment.registerNewUser(sampleProfile())
            try await AuthenticationClientTests.verifyEmail(app, server: sdk.context.serverURL)
            await storage.configure { $0.failingWrites = ["latchkey.session"] }
            let refused = await failure { _ = try await sdk.authentication.loginByNonce(registered.nonce) }
            #expect(refused?.kind == .storage && refused?.domain == .loginWithNonce, "\(String(describing: refused))")
            #expect(await sdk.authentication.state == .loggedOut)

            await storage.configure { $0.failingWrites = [] }
            _ = try await sdk.authentication.loginByUsernamePassword(username: "grace@example.com", password: "cobol-rules-1959")
            #expect(await storage.session()?.customerUri == registered.customerUri)
            #expect(await storage.values.keys.sorted() == ["latchkey.deviceKey", "latchkey.session"])
        }
    }

    /// A logout whose delete fails says so, is signed out for this launch, and the session it
    /// could not delete is revoked on the server, so after a relaunch it is refused and dropped.
    @Test func aLogoutThatCannotDeleteSaysSo() async throws {
        let storage = PhoneStorage()
        try await withLiveServer(storage: storage) { sdk, app in
            _ = try await Self.signedIn(sdk, app)
            await storage.configure { $0.failingWrites = ["latchkey.session"] }
            let refused = await failure { try await sdk.authentication.logout() }
            #expect(refused?.kind == .storage && refused?.domain == .logout)
            #expect(await sdk.authentication.state == .loggedOut)

            let relaunched = testClient(context: sdk.context, storage: storage)
            _ = await failure { _ = try await relaunched.authentication.currentSession() }
            #expect(await relaunched.authentication.state == .loggedOut, "the server revoked it at the logout")
        }
    }

    /// Offline, logout signs out here at once and does not fail; the revocation is sent at the
    /// next login, and the old session is dead on the server.
    @Test func anOfflineLogoutSignsOutAndRevokesLater() async throws {
        let storage = PhoneStorage()
        let network = FlakyNetwork()
        try await withLiveServer(storage: storage, transport: network) { sdk, app in
            _ = try await Self.signedIn(sdk, app)
            let token = try #require(await storage.session()?.token)
            network.offline.store(true, ordering: .relaxed)
            try await sdk.authentication.logout()
            #expect(await sdk.authentication.state == .loggedOut)
            #expect(await storage.session()?.revoking == true, "kept, marked, for the revocation")
            #expect(try await app.store.touchSession(digest: SecureRandom.digest(token), now: Date(), idle: 3600) != nil)

            network.offline.store(false, ordering: .relaxed)
            _ = try await sdk.authentication.loginByPIN("314159")
            #expect(try await app.store.touchSession(digest: SecureRandom.digest(token), now: Date(), idle: 3600) == nil)
            #expect(await storage.session()?.token != token)
        }
    }

    /// A stored key that cannot be restored fails every call with `.deviceKey`, and
    /// `resetDeviceKey()` is the way out: a new key, a device the server does not know (MFA).
    @Test func anUnreadableKeyIsResetAndTheDeviceLinkedAgain() async throws {
        let storage = PhoneStorage()
        try await withLiveServer(storage: storage) { sdk, app in
            _ = try await Self.signedIn(sdk, app)
            let old = try await sdk.deviceThumbprint()
            try await storage.set(Data("software:broken".utf8), for: "latchkey.deviceKey")
            let relaunched = testClient(context: sdk.context, storage: storage)
            let broken = await failure { _ = try await relaunched.authentication.loginByPIN("314159") }
            #expect(broken?.kind == .storage && broken?.id == .deviceKey && broken?.domain == .loginWithPin,
                    "\(String(describing: broken))")

            let new = try await relaunched.resetDeviceKey()
            #expect(new != old)
            #expect(await relaunched.authentication.state == .loggedOut)
            guard case .mfaRequired = try await relaunched.authentication.loginByUsernamePassword(
                username: "grace@example.com", password: "cobol-rules-1959") else {
                Issue.record("a new key is a new device: MFA")
                return
            }
        }
    }
}

enum StoredSessionFixture {
    static func item(token: String, customerUri: String) throws -> Data {
        try JSONSerialization.data(withJSONObject: ["token": token, "customerUri": customerUri, "revoking": false])
    }
}
