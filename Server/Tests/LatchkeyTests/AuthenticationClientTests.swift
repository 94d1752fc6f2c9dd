#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
import Latchkey
import LatchkeyCore
import LatchkeyDomain
import LatchkeySQL
import LatchkeyServer
import Testing

/// Collects states from the delegate, as a `@MainActor` view model would.
@MainActor final class RecordingDelegate: AuthenticationDelegate {
    private(set) var states: [AuthenticationState] = []
    func authenticationStateDidChange(_ state: AuthenticationState) {
        MainActor.assertIsolated("the delegate is told on the main actor")
        states.append(state)
    }

    /// The states once `count` have arrived (delivery is asynchronous), or after five seconds.
    func states(count: Int) async -> [AuthenticationState] {
        for _ in 0..<500 where states.count < count { try? await Task.sleep(for: .milliseconds(10)) }
        return states
    }
}

@Suite struct AuthenticationClientTests {
    /// Verifies the email of the newest registration through its link, as the user would: opens it
    /// and presses the button of its confirmation page.
    static func verifyEmail(_ app: LatchkeyApplication, server: URL) async throws {
        let row = try #require(try await app.store.outboxMessages().last)
        let link = try #require(app.cipher.open(row)?.data["link"])
        let path = String(link[link.range(of: "/verify-email")!.lowerBound...])
        let page = try await EmailLinkBrowser.follow(URL(string: server.absoluteString + path)!)
        #expect(page.status == 200 && page.html.contains("Email verified"), "\(page.html)")
    }

    @Test func theWholeWalk() async throws {
        try await withLiveServer { sdk, app in
            let auth = sdk.authentication
            let delegate = await RecordingDelegate()
            await auth.setDelegate(delegate)
            let stream = await auth.authenticationStateChanges()
            #expect(await auth.state == .loggedOut)

            let registered = try await sdk.enrollment.registerNewUser(sampleProfile())
            try await Self.verifyEmail(app, server: sdk.context.serverURL)
            guard case .authenticated = try await auth.loginByNonce(registered.nonce) else {
                Issue.record("nonce login must authenticate")
                return
            }
            #expect(await auth.state == .authenticated(customerUri: registered.customerUri))
            let session = try await auth.currentSession()
            #expect(session.customerUri == registered.customerUri)
            #expect(session.deviceId == "jkt:" + (try await sdk.deviceThumbprint()))
            try await auth.logout()
            #expect(await auth.state == .loggedOut)

            guard case .authenticated(let attributes) = try await auth.loginByUsernamePassword(
                username: "GRACE@example.com", password: "cobol-rules-1959") else {
                Issue.record("password login must authenticate")
                return
            }
            #expect(attributes["lastLogin"] != nil)
            guard case .authenticated = try await auth.loginByPIN("314159") else {
                Issue.record("PIN login must authenticate")
                return
            }
            #expect(await !auth.isAuthorizationTokenExist())
            try await auth.generateDeviceAuthenticationToken(username: "grace@example.com", password: "cobol-rules-1959")
            #expect(await auth.isAuthorizationTokenExist())
            try await auth.logout()
            guard case .authenticated = try await auth.loginWithDeviceAuthenticationToken() else {
                Issue.record("device token login must authenticate")
                return
            }
            try await auth.expireDeviceAuthenticationToken()
            #expect(await !auth.isAuthorizationTokenExist())
            let none = await failure { _ = try await auth.loginWithDeviceAuthenticationToken() }
            #expect(none?.code == .noDeviceToken)
            #expect(none?.domain == .loginWithDeviceAuthenticationToken)
            let noneToExpire = await failure { try await auth.expireDeviceAuthenticationToken() }
            #expect(noneToExpire?.code == 1003)
            try await auth.logout()
            let notLoggedIn = await failure { try await auth.logout() }
            #expect(notLoggedIn?.code == .notLoggedIn)
            #expect(notLoggedIn?.domain == .logout)

            var seen: [AuthenticationState] = []
            for await state in stream {
                seen.append(state)
                if seen.count == 7 { break }
            }
            #expect(seen.first == .loggedOut)
            #expect(seen.last == .loggedOut)
            #expect(await delegate.states(count: 7) == [.loggedOut, .authenticated(customerUri: registered.customerUri), .loggedOut,
                                     .authenticated(customerUri: registered.customerUri), .loggedOut,
                                     .authenticated(customerUri: registered.customerUri), .loggedOut])
        }
    }

    @Test func mfaPromptOnASecondDevice() async throws {
        try await withLiveServer { sdk, app in
            let registered = try await sdk.enrollment.registerNewUser(sampleProfile())
            try await Self.verifyEmail(app, server: sdk.context.serverURL)
            _ = try await sdk.authentication.loginByNonce(registered.nonce)
            var context = sdk.context
            context.deviceID = "second-device"
            let second = testClient(context: context)
            guard case .mfaRequired(var token) = try await second.authentication.loginByUsernamePassword(
                username: "grace@example.com", password: "cobol-rules-1959") else {
                Issue.record("an unlinked device must be prompted")
                return
            }
            #expect(await second.authentication.state == .loggedOut)
            let answers = sampleProfile().mfaAnswers ?? [:]
            token.mfaSecretAnswer = "wrong answer"
            let wrong = await failure { _ = try await second.authentication.registerWithMFA(token) }
            #expect(wrong?.code == .unauthorized)
            #expect(wrong?.domain == .loginWithUsernamePassword, "registerWithMFA reports in the prompting login's domain")
            guard case .mfaRequired(var again) = try await second.authentication.loginByUsernamePassword(
                username: "grace@example.com", password: "cobol-rules-1959") else { return }
            again.mfaSecretAnswer = try #require(answers[again.mfaSecretQuestion]).uppercased()
            guard case .authenticated = try await second.authentication.registerWithMFA(again) else {
                Issue.record("the right answer must authenticate")
                return
            }
            #expect(await second.authentication.state != .loggedOut)
        }
    }

    @Test func a401OnAnAuthenticatedCallLogsOut() async throws {
        try await withLiveServer { sdk, app in
            let registered = try await sdk.enrollment.registerNewUser(sampleProfile())
            try await Self.verifyEmail(app, server: sdk.context.serverURL)
            _ = try await sdk.authentication.loginByNonce(registered.nonce)
            let user = try #require(try await app.store.user(issuer: "default", emailNormalized: "grace@example.com"))
            try await app.store.revokeSessions(userID: user.id, except: nil, deviceID: nil, now: Date())
            let error = await failure { _ = try await sdk.authentication.currentSession() }
            #expect(error?.code == .notLoggedIn)
            #expect(await sdk.authentication.state == .loggedOut)
        }
    }

    @Test func deviceTokenExpiryFollowsTheInjectedClock() async throws {
        let offset = ClockOffset()
        try await withLiveServer(now: { Date().addingTimeInterval(offset.seconds) }) { sdk, app in
            let registered = try await sdk.enrollment.registerNewUser(sampleProfile())
            try await Self.verifyEmail(app, server: sdk.context.serverURL)
            _ = try await sdk.authentication.loginByNonce(registered.nonce)
            _ = try await sdk.authentication.loginByPIN("314159")   // a privileged change needs a knowledge factor
            let expires = try await sdk.authentication.generateDeviceAuthenticationToken(username: "grace@example.com",
                                                                                        password: "cobol-rules-1959")
            #expect(expires.timeIntervalSinceNow > 89 * 86_400)
            #expect(await sdk.authentication.isAuthorizationTokenExist())
            offset.seconds = 91 * 86_400
            #expect(await !sdk.authentication.isAuthorizationTokenExist())
        }
    }

    @Test func theSessionSurvivesARestartOfTheAppInItsStorage() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("sdk-\(UUID().uuidString)/credentials.json")
        try await withLiveServer { sdk, app in
            // The app registers and logs in on one installation: its device key is in `file` too.
            let first = testClient(context: sdk.context, storage: FileCredentialStorage(url: file))
            let registered = try await first.enrollment.registerNewUser(sampleProfile())
            try await Self.verifyEmail(app, server: sdk.context.serverURL)
            _ = try await first.authentication.loginByNonce(registered.nonce)
            _ = try await first.authentication.loginByPIN("314159")   // a privileged change needs a knowledge factor
            try await first.authentication.generateDeviceAuthenticationToken(username: "grace@example.com",
                                                                             password: "cobol-rules-1959")
            let stored = try String(contentsOf: file, encoding: .utf8)
            #expect(!stored.isEmpty)

            let relaunched = testClient(context: sdk.context, storage: FileCredentialStorage(url: file))
            #expect(await relaunched.authentication.state == .authenticated(customerUri: registered.customerUri))
            #expect(try await relaunched.authentication.currentSession().customerUri == registered.customerUri)
            #expect(await relaunched.authentication.isAuthorizationTokenExist())
        }
    }

    @Test func listsAndUnlinksItsDevice() async throws {
        try await withLiveServer { sdk, app in
            let registered = try await sdk.enrollment.registerNewUser(sampleProfile())
            try await Self.verifyEmail(app, server: sdk.context.serverURL)
            _ = try await sdk.authentication.loginByNonce(registered.nonce)
            _ = try await sdk.authentication.loginByPIN("314159")   // unlinking needs a knowledge factor
            let devices = try await sdk.authentication.devices()
            let thumbprint = try await sdk.deviceThumbprint()
            #expect(devices.map(\.thumbprint) == [thumbprint])
            #expect(devices.first?.isCurrent == true)
            #expect(devices.first?.label == "sdk-device")
            #expect(devices.first?.status == .active)
            let missing = await failure { try await sdk.authentication.unlinkDevice("jkt:unknown") }
            #expect(missing?.code.rawValue == 404)
            #expect(missing?.domain == .devices)
            try await sdk.authentication.unlinkDevice("jkt:" + thumbprint)
            #expect(await sdk.authentication.state == .loggedOut)
        }
    }

    @Test func wrongPasswordDoesNotEndTheSession() async throws {
        try await withLiveServer { sdk, app in
            let registered = try await sdk.enrollment.registerNewUser(sampleProfile())
            try await Self.verifyEmail(app, server: sdk.context.serverURL)
            _ = try await sdk.authentication.loginByNonce(registered.nonce)
            let wrong = await failure { _ = try await sdk.authentication.loginByUsernamePassword(username: "grace@example.com",
                                                                                                     password: "nope-nope-1") }
            #expect(wrong?.code == .unauthorized)
            #expect(wrong?.domain == .loginWithUsernamePassword)
            #expect(await sdk.authentication.state != .loggedOut)
        }
    }
}

/// A settable offset for an injected clock.
final class ClockOffset: @unchecked Sendable {
    private let lock = NSLock()
    private var value: TimeInterval = 0
    var seconds: TimeInterval {
        get { lock.withLock { value } }
        set { lock.withLock { value = newValue } }
    }
}
