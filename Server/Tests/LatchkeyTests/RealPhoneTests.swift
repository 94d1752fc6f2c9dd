#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
import HTTPTypes
import Latchkey
import LatchkeyCore
import LatchkeyDomain
import LatchkeyServer
import OpenAPIRuntime
import OpenAPIURLSession
import Synchronization
import Testing

/// How `ProofRefusingTransport` refuses a call's proof.
enum ProofRefusal: Sendable, CustomTestStringConvertible {
    /// The proof's signature is broken on the way: the real server refuses it (`invalid_dpop_proof`).
    case brokenProof
    /// The server asks for a fresh nonce every time (`use_dpop_nonce`, refused twice).
    case nonceRefused

    var id: ErrorID { self == .brokenProof ? .invalidDPoPProof : .useDPoPNonce }
    var testDescription: String { id.rawValue }
}

/// A transport on which the proofs of chosen calls are refused, and that can lose the network.
final class ProofRefusingTransport: ClientTransport {
    let inner = URLSessionTransport()
    let offline = Atomic<Bool>(false)
    private let refusals = Mutex<[String: ProofRefusal]>([:])

    func refuse(_ operationID: String, _ refusal: ProofRefusal) { refusals.withLock { $0[operationID] = refusal } }
    func refuseNothing() { refusals.withLock { $0 = [:] } }

    func send(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String) async throws -> (HTTPResponse, HTTPBody?) {
        if offline.load(ordering: .relaxed) { throw URLError(.notConnectedToInternet) }
        var request = request
        switch refusals.withLock({ $0[operationID] }) {
        case .brokenProof?:
            guard let proof = request.headerFields[HTTPField.Name("DPoP")!] else { throw URLError(.badURL) }
            request.headerFields[HTTPField.Name("DPoP")!] = String(proof.dropLast(4)) + "AAAA"
        case .nonceRefused?:
            let envelope = #"{"error":{"code":401,"id":"use_dpop_nonce","message":"Sign the proof again with the nonce."}}"#
            let response = HTTPResponse(status: .unauthorized, headerFields: [
                .wwwAuthenticate: #"DPoP error="use_dpop_nonce""#, HTTPField.Name("DPoP-Nonce")!: UUID().uuidString,
                .contentType: "application/json",
            ])
            return (response, HTTPBody(envelope))
        case nil:
            break
        }
        return try await inner.send(request, body: body, baseURL: baseURL, operationID: operationID)
    }
}

/// More of what a wallet app meets on real phones: a launch before the first unlock, an app
/// extension with a stale session, refused proofs, a reinstall marker that cannot be written, a
/// locked Keychain, concurrent key resets.
@Suite struct RealPhoneTests {
    static let offline = LatchkeyContext(serverURL: URL(string: "http://127.0.0.1:9")!, applicationSignature: signature,
                                         deviceID: "d")
    static let customer = "urn:latchkey:customer:1"

    /// Launched in the background before the first unlock, the state is `.unknown`; nothing reads
    /// again while the phone stays locked, and once protected data becomes available the stored
    /// session is read again by itself and published on the stream (the splash screen clears).
    @Test func aLaunchBeforeTheFirstUnlockIsReadAgainWhenProtectedDataBecomesAvailable() async throws {
        let storage = PhoneStorage(["latchkey.session": try StoredSessionFixture.item(token: "token", customerUri: Self.customer)])
        await storage.configure { $0.failingReads = .max }
        let (signal, fire) = AsyncStream<Void>.makeStream()
        let client = LatchkeyClient(context: Self.offline, storage: storage, reinstall: .off,
                                    protectedData: ProtectedDataSignal(signal))
        let (seen, follower) = await StateLog.following(client)
        defer { follower.cancel() }
        #expect(await eventually { seen.all == [.unknown] })
        fire.yield()
        try await Task.sleep(for: .milliseconds(100))
        #expect(seen.all == [.unknown], "still locked: still unknown")

        await storage.configure { $0.failingReads = 0 }
        fire.yield()
        #expect(await eventually { seen.all == [.unknown, .authenticated(customerUri: Self.customer)] }, "\(seen.all)")
    }

    /// The notification form of the signal (what `.automatic` observes with UIKit's names) reads
    /// again at a post of any of its names.
    @Test func aPostedNotificationReadsAgain() async throws {
        let storage = PhoneStorage(["latchkey.session": try StoredSessionFixture.item(token: "token", customerUri: Self.customer)])
        await storage.configure { $0.failingReads = .max }
        let center = NotificationCenter()
        let becameActive = Notification.Name("test.didBecomeActive")
        let client = LatchkeyClient(context: Self.offline, storage: storage, reinstall: .off,
                                    protectedData: .notifications([Notification.Name("test.protectedData"), becameActive], center: center))
        let (seen, follower) = await StateLog.following(client)
        defer { follower.cancel() }
        #expect(await eventually { seen.all == [.unknown] })
        await storage.configure { $0.failingReads = 0 }
        center.post(name: becameActive, object: nil)
        #expect(await eventually { seen.all == [.unknown, .authenticated(customerUri: Self.customer)] }, "\(seen.all)")
    }

    /// One signal given to two clients (an app and the client of a second service): each follows
    /// it with observers of its own, and a post reads the stored session again in both.
    @Test func oneSignalFollowedByTwoClientsReadsAgainInBoth() async throws {
        let storage = PhoneStorage(["latchkey.session": try StoredSessionFixture.item(token: "token", customerUri: Self.customer)])
        await storage.configure { $0.failingReads = .max }
        let center = NotificationCenter()
        let unlocked = Notification.Name("test.protectedData")
        let signal = ProtectedDataSignal.notifications([unlocked], center: center)
        let first = LatchkeyClient(context: Self.offline, storage: storage, reinstall: .off, protectedData: signal)
        let second = LatchkeyClient(context: Self.offline, storage: storage, reinstall: .off, protectedData: signal)
        let (firstSeen, firstFollower) = await StateLog.following(first)
        let (secondSeen, secondFollower) = await StateLog.following(second)
        defer { firstFollower.cancel(); secondFollower.cancel() }
        #expect(await eventually { firstSeen.all == [.unknown] && secondSeen.all == [.unknown] })
        await storage.configure { $0.failingReads = 0 }
        center.post(name: unlocked, object: nil)
        let signedIn: [AuthenticationState] = [.unknown, .authenticated(customerUri: Self.customer)]
        #expect(await eventually { firstSeen.all == signedIn }, "\(firstSeen.all)")
        #expect(await eventually { secondSeen.all == signedIn }, "\(secondSeen.all)")
    }

    /// Attack on the shared Keychain: a widget caches the session, the app signs out and in again
    /// (a new session in the shared item), and the widget's stale session is refused. The refusal
    /// deletes nothing the widget did not read: the app's new session stays stored and working, and
    /// the widget takes it up.
    @Test func anExtensionsStaleSessionLeavesTheAppsNewSession() async throws {
        let storage = PhoneStorage()
        try await withLiveServer(storage: storage) { sdk, app in
            let customer = try await PhoneConditionsTests.signedIn(sdk, app)
            let widget = testClient(context: sdk.context, storage: storage)
            #expect(await widget.authentication.state == .authenticated(customerUri: customer))
            try await sdk.authentication.logout()
            _ = try await sdk.authentication.loginByPIN("314159")
            let renewed = try #require(await storage.session())

            let refused = await failure { _ = try await widget.authentication.currentSession() }
            #expect(refused?.code == .notLoggedIn, "\(String(describing: refused))")
            #expect(await storage.session()?.token == renewed.token, "the app's new session is still stored")
            #expect(try await sdk.authentication.currentSession().customerUri == customer)
            #expect(await widget.authentication.state == .authenticated(customerUri: customer))
            #expect(try await widget.authentication.currentSession().customerUri == customer)
        }
    }

    /// A device-token login whose proof is refused (a broken proof, a nonce refused twice) keeps
    /// the device token: quick login works again once proofs go through.
    @Test(arguments: [ProofRefusal.brokenProof, .nonceRefused])
    func aRefusedProofKeepsTheDeviceToken(_ refusal: ProofRefusal) async throws {
        let network = ProofRefusingTransport()
        try await withLiveServer(transport: network) { sdk, app in
            _ = try await PhoneConditionsTests.signedIn(sdk, app)
            _ = try await sdk.authentication.loginByPIN("314159")   // a privileged change needs a knowledge factor
            try await sdk.authentication.generateDeviceAuthenticationToken(username: "grace@example.com", password: "cobol-rules-1959")
            network.refuse("loginWithDeviceAuthenticationToken", refusal)
            let refused = await failure { _ = try await sdk.authentication.loginWithDeviceAuthenticationToken() }
            #expect(refused?.id == refusal.id, "\(String(describing: refused))")
            #expect(await sdk.authentication.isAuthorizationTokenExist(), "a refused proof is no refused token")

            network.refuseNothing()
            guard case .authenticated = try await sdk.authentication.loginWithDeviceAuthenticationToken() else {
                Issue.record("the kept device token logs in")
                return
            }
        }
    }

    /// A device token the server refuses as a credential (`invalid_credentials`) is dropped.
    @Test func aRefusedDeviceTokenIsDropped() async throws {
        let storage = PhoneStorage()
        try await withLiveServer(storage: storage) { sdk, app in
            _ = try await PhoneConditionsTests.signedIn(sdk, app)
            try await storage.set(try JSONSerialization.data(withJSONObject: ["token": "no-such-device-token"]), for: "latchkey.deviceToken")
            let refused = await failure { _ = try await sdk.authentication.loginWithDeviceAuthenticationToken() }
            #expect(refused?.id == .invalidCredentials, "\(String(describing: refused))")
            #expect(await storage.values["latchkey.deviceToken"] == nil)
            #expect(await !sdk.authentication.isAuthorizationTokenExist())
        }
    }

    /// An offline logout's pending revocation survives a revocation whose proof is refused, and is
    /// sent at the next logout; the session then ends on the server.
    @Test func aRefusedProofKeepsThePendingRevocation() async throws {
        let storage = PhoneStorage()
        let network = ProofRefusingTransport()
        try await withLiveServer(storage: storage, transport: network) { sdk, app in
            _ = try await PhoneConditionsTests.signedIn(sdk, app)
            let token = try #require(await storage.session()?.token)
            network.offline.store(true, ordering: .relaxed)
            try await sdk.authentication.logout()
            network.offline.store(false, ordering: .relaxed)

            network.refuse("logout", .brokenProof)
            try await sdk.authentication.logout()
            #expect(await storage.session()?.revoking == true, "kept for the next try")
            #expect(try await app.store.touchSession(digest: SecureRandom.digest(token), now: Date(), idle: 3600) != nil)

            network.refuseNothing()
            try await sdk.authentication.logout()
            #expect(try await app.store.touchSession(digest: SecureRandom.digest(token), now: Date(), idle: 3600) == nil)
            #expect(await storage.session() == nil)
        }
    }

    /// A reinstall marker that cannot be written (its directory cannot be made) is logged, and the
    /// session is not dropped: neither at this launch nor, with a session signed in since, at every
    /// later one.
    @Test func aMarkerThatCannotBeWrittenDoesNotSignOutEveryLaunch() async throws {
        let blocker = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-blocker-\(UUID().uuidString)")
        try Data("a file where the marker's directory would be".utf8).write(to: blocker)
        defer { try? FileManager.default.removeItem(at: blocker) }
        let detection = ReinstallDetection.markerFile(in: blocker.appendingPathComponent("Latchkey"))
        let storage = PhoneStorage(["latchkey.session": try StoredSessionFixture.item(token: "earlier", customerUri: Self.customer)])
        let logs = LogCollector()
        let first = LatchkeyClient(context: Self.offline, storage: storage, reinstall: detection, protectedData: .never, logHandler: logs)
        #expect(await first.authentication.state == .authenticated(customerUri: Self.customer))
        #expect(logs.all.contains { $0.level == .warning && $0.message.contains("marker") }, "\(logs.all.map(\.message))")

        let since = "urn:latchkey:customer:2"
        try await storage.set(try StoredSessionFixture.item(token: "signed-in-since", customerUri: since), for: "latchkey.session")
        let next = LatchkeyClient(context: Self.offline, storage: storage, reinstall: detection, protectedData: .never)
        #expect(await next.authentication.state == .authenticated(customerUri: since))
    }

    /// A first launch whose delete of the earlier installation's session fails removes its marker
    /// again: the session is not taken up, and the next launch drops it.
    @Test func aFailedDropOfTheEarlierSessionLeavesNoMarker() async throws {
        let storage = PhoneStorage(["latchkey.session": try StoredSessionFixture.item(token: "earlier", customerUri: Self.customer)])
        let container = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: container) }
        let detection = ReinstallDetection.markerFile(in: container)
        await storage.configure { $0.failingWrites = ["latchkey.session"] }
        let first = LatchkeyClient(context: Self.offline, storage: storage, reinstall: detection, protectedData: .never)
        #expect(await first.authentication.state == .unknown, "the earlier session is not taken up")
        #expect(!FileManager.default.fileExists(atPath: container.appendingPathComponent(".latchkey-installed-latchkey").path))

        await storage.configure { $0.failingWrites = [] }
        let next = LatchkeyClient(context: Self.offline, storage: storage, reinstall: detection, protectedData: .never)
        #expect(await next.authentication.state == .loggedOut)
        #expect(await storage.session() == nil)
    }

    /// A Keychain that cannot be read (locked) is no "no device token": the quick-login button
    /// stays, and the login says the storage could not be read (not 1003).
    @Test func aLockedPhoneDoesNotClaimThereIsNoDeviceToken() async throws {
        let storage = PhoneStorage(["latchkey.deviceToken": try JSONSerialization.data(withJSONObject: ["token": "t"])])
        let client = testClient(context: Self.offline, storage: storage)
        await storage.configure { $0.failingReads = 1 }
        #expect(await client.authentication.isAuthorizationTokenExist())
        await storage.configure { $0.failingReads = 1 }
        let refused = await failure { _ = try await client.authentication.loginWithDeviceAuthenticationToken() }
        #expect(refused?.kind == .storage, "\(String(describing: refused))")
        #expect(await !testClient(context: Self.offline, storage: PhoneStorage()).authentication.isAuthorizationTokenExist())
    }

    /// A storage that fails for another reason than a locked device (a damaged file, a missing
    /// entitlement) answers "no token": quick login could not work.
    @Test func anUnreadableStorageOtherThanLockedClaimsNoDeviceToken() async throws {
        let storage = PhoneStorage(["latchkey.deviceToken": try JSONSerialization.data(withJSONObject: ["token": "t"])])
        let client = testClient(context: Self.offline, storage: storage)
        await storage.configure { $0.failingReads = .max; $0.readError = CocoaError(.fileReadCorruptFile) }
        #expect(await !client.authentication.isAuthorizationTokenExist())
    }

    /// A call that joined a key load started before a reset answers the reset's key too, never
    /// the key it replaced.
    @Test func aCallJoiningALoadFromBeforeAResetGetsTheNewKey() async throws {
        let storage = PhoneStorage()
        let old = try await testClient(context: Self.offline, storage: storage).deviceThumbprint()
        let client = testClient(context: Self.offline, storage: storage)
        await storage.hold(firstReadOf: "latchkey.deviceKey")
        let loading = Task { try await client.deviceThumbprint() }
        try await Task.sleep(for: .milliseconds(50))
        let joined = Task { try await client.deviceThumbprint() }
        try await Task.sleep(for: .milliseconds(50))
        let new = try await client.resetDeviceKey()
        await storage.release()
        #expect(new != old)
        #expect(try await loading.value == new)
        #expect(try await joined.value == new, "the caller that joined the load answers the new key")
    }

    /// `resetDeviceKey()` with other calls reading the key meanwhile (a Keychain slow to write)
    /// answers the new key, which is the key stored and the key every later call uses.
    @Test func aResetUnderConcurrentCallsHandsBackTheNewKey() async throws {
        let storage = PhoneStorage()
        let client = testClient(context: Self.offline, storage: storage)
        await storage.configure { $0.writeDelay = .milliseconds(20) }
        for _ in 0..<3 {
            let before = try await client.deviceThumbprint()
            let readers = Task {
                try await withThrowingTaskGroup(of: String.self) { group in
                    for delay in stride(from: 0, to: 200, by: 4) {
                        group.addTask {
                            try await Task.sleep(for: .milliseconds(delay))
                            return try await client.deviceThumbprint()
                        }
                    }
                    return try await group.reduce(into: [String]()) { $0.append($1) }
                }
            }
            let new = try await client.resetDeviceKey()
            _ = try await readers.value
            #expect(new != before, "the reset handed back the old key")
            let stored = try await testClient(context: Self.offline, storage: storage).deviceThumbprint()
            #expect(new == stored)
            #expect(try await client.deviceThumbprint() == stored)
        }
    }
}
