import Foundation
import LatchkeyAPI
import LatchkeyCore
import HTTPTypes
import HummingbirdTesting
import LatchkeyDomain
import LatchkeySQL
import LatchkeyServer
import LatchkeyTestSupport
import Testing

/// Account-security hardening of the credential changes: the expired-password change only for an
/// expired password, and a PIN change or reset ending what the old PIN may have opened.
@Suite struct CredentialChangeHardeningTests {
    /// Attack: `changeExpiredPassword` of a password that has not expired, from any device,
    /// without a session or MFA. It answers 400 `password_not_expired` and changes nothing.
    @Test(arguments: TestEnvironment.engines)
    func theExpiredPasswordChangeNeedsAnExpiredPassword(engine: String) async throws {
        try await withServer(engine: engine, configure: { $0.issuer.passwordExpiryDays = 30 }) { app, client in
            _ = try await AuthFixture.enrolledSession(app, client)
            let change = try await client.call(.post, "/v1/enrollment/expired-password", headers: appHeaders(device: "elsewhere"),
                                               body: ["email": "ada@example.com", "expiredPassword": AuthFixture.password,
                                                      "newPassword": "taken-over-42", "confirmNewPassword": "taken-over-42"])
            #expect(change.status == .badRequest, "\(change.json)")
            #expect(change.failure?.id == "password_not_expired" && change.errorCode == 400)
            #expect(try await AuthFixture.passwordLogin(client).login?.sessionToken != nil, "the password is unchanged")
            #expect(try await AuthFixture.passwordLogin(client, password: "taken-over-42").errorCode == 401)
        }
    }

    /// Attack: whoever learned the old PIN keeps what it opened after the owner changes it. A PIN
    /// change ends the other sessions and every device token.
    @Test(arguments: TestEnvironment.engines)
    func aPasscodeChangeEndsTheOtherSessionsAndDeviceTokens(engine: String) async throws {
        try await withServer(engine: engine) { app, client in
            let mine = try await AuthFixture.enrolledSession(app, client)
            let other = try #require(try await AuthFixture.passwordLogin(client).login?.sessionToken)
            let created = try await client.call(.post, "/v1/auth/device-token", headers: appHeaders(session: other),
                                                body: ["username": "ada@example.com", "password": AuthFixture.password])
            let deviceToken = try #require(created.decoded(Components.Schemas.DeviceTokenResponse.self)?.deviceToken, "\(created.json)")

            let changed = try await client.call(.put, "/v1/profile/passcode", headers: appHeaders(session: mine),
                                                body: ["oldPasscode": "314159", "newPasscode": "271828", "confirmNewPasscode": "271828"])
            #expect(changed.status == .ok, "\(changed.json)")
            #expect(try await client.call(.get, "/v1/auth/session", headers: appHeaders(session: mine)).status == .ok)
            #expect(try await client.call(.get, "/v1/auth/session", headers: appHeaders(session: other)).status == .unauthorized)
            #expect(try await client.call(.post, "/v1/auth/login/device-token", body: ["deviceToken": deviceToken]).errorCode == 401)
        }
    }

    /// A PIN reset through the portal ends every session and device token of the wallet.
    @Test(arguments: TestEnvironment.engines)
    func aPasscodeResetEndsEverySession(engine: String) async throws {
        try await withServer(engine: engine) { app, client in
            let session = try await AuthFixture.enrolledSession(app, client)
            let browser = PortalBrowser(client)
            let form = try await ResetFixture.grantForm(browser, try await ResetFixture.requestLink(app, client, kind: "passcode"))
            let done = try await browser.post("/reset/credential", ["grant": form.hidden("grant")!, "csrf": form.hidden("csrf")!,
                                                                    "new": "275804", "confirm": "275804"])
            #expect(done.text(id: "title") == "Your PIN is reset")
            #expect(try await client.call(.get, "/v1/auth/session", headers: appHeaders(session: session)).status == .unauthorized)
        }
    }

    /// Attack: `password` and `12345678` were accepted. Registration, a password change and the
    /// phone sign-up refuse passwords on the common list (419), whatever their case.
    @Test(arguments: TestEnvironment.engines)
    func commonPasswordsAreRefused(engine: String) async throws {
        try await withServer(engine: engine) { app, client in
            for common in ["password", "12345678", "IloveYou"] {
                let registered = try await client.call(.post, "/v1/enrollment/users", body: registrationBody(email: "c@example.com") {
                    $0["password"] = common
                    $0["confirmPassword"] = common
                })
                #expect(registered.errorCode == 419 && registered.errorField == "userProfile.password", "\(common): \(registered.json)")
                #expect((registered.failure?.message)?.contains("common") == true)
            }
            #expect(try await app.store.user(issuer: "default", emailNormalized: "c@example.com") == nil)
            let session = try await AuthFixture.enrolledSession(app, client)
            let change = try await client.call(.put, "/v1/profile/password", headers: appHeaders(session: session),
                                               body: ["oldPassword": AuthFixture.password, "newPassword": "password1",
                                                      "confirmNewPassword": "password1"])
            #expect(change.errorCode == 419 && change.errorField == "newPassword", "\(change.json)")
            #expect(try await AuthFixture.passwordLogin(client).login?.sessionToken != nil)

            let flow = try await SignupFixture.verifiedFlow(app, client)
            let signup = try await SignupFixture.finish(client, flow: flow, password: "iloveyou")
            #expect(signup.status == .badRequest, "\(signup.json)")
            #expect(try await app.store.user(issuer: "default", phoneNormalized: SignupFixture.phone) == nil)
        }
    }

    /// Attack: whoever has the password prompts again and again until the easiest question comes
    /// up (with a new random question per prompt, 9 prompts show all 3), or asks for reset link
    /// after reset link. The wallet is asked one question, from every device and in every reset link, until it is
    /// answered rightly.
    @Test(arguments: TestEnvironment.engines)
    func theMFAPromptKeepsItsQuestion(engine: String) async throws {
        try await withServer(engine: engine) { app, client in
            _ = try await AuthFixture.enrolledSession(app, client)
            var asked: Set<String> = []
            var challenge = ""
            for attempt in 0..<12 {
                let prompt = try await AuthFixture.passwordLogin(client, device: "stranger-\(attempt)")
                let token = try #require(prompt.login?.mfaToken, "\(prompt.json)")
                asked.insert(try #require(token.mfaSecretQuestion))
                challenge = token.challengeToken
            }
            #expect(asked.count == 1, "asked: \(asked)")
            let question = try #require(asked.first)
            let page = try await PortalBrowser(client).get(try await ResetFixture.requestLink(app, client))
            #expect(page.html.contains(question.replacingOccurrences(of: "'", with: "&#39;")), "the reset link asks it too")

            let answers = ["What was the name of your first pet?": "Rex", "In what city were you born?": "London",
                           "What is your mother's maiden name?": "Byron"]
            let linked = try await client.call(.post, "/v1/auth/mfa", headers: appHeaders(device: "stranger-11"),
                                               body: ["challengeToken": challenge, "mfaSecretAnswer": try #require(answers[question])])
            #expect(linked.login?.sessionToken != nil, "\(linked.json)")
            let user = try #require(try await app.store.user(issuer: "default", emailNormalized: "ada@example.com"))
            #expect(try await app.store.pendingMFAQuestion(userID: user.id) == nil, "a right answer lets the next prompt draw anew")
        }
    }

    /// Attack: a phone sign-up names someone else's email as a trait to keep the owner's
    /// `registerNewUser` from it (416). The email is an unverified claim: the owner
    /// registers, and the claim's link, opened later, changes nothing. A claim of an address a
    /// wallet already holds is dropped (no email goes there).
    @Test(arguments: TestEnvironment.engines)
    func aPhoneSignupsEmailClaimNeverBlocksItsOwner(engine: String) async throws {
        try await withServer(engine: engine, configure: SignupFixture.configure) { app, client in
            let flow = try await SignupFixture.verifiedFlow(app, client)
            #expect(try await SignupFixture.finish(client, flow: flow, email: "ada@example.com").status == .ok)
            let claim = try #require(try await app.store.outboxMessages().first {
                $0.template == "email_verification" && $0.recipient == "ada@example.com"
            })
            let owner = try await client.call(.post, "/v1/enrollment/users", body: registrationBody())
            #expect(owner.status == .created, "\(owner.json)")

            let claims = try await app.store.outboxMessages().filter { $0.template == "email_verification" && $0.recipient == "ada@example.com" }
            #expect(claims.count == 2, "the claim's link and the owner's")
            let firstClaim = claim
            let claimLink = try #require(app.cipher.open(firstClaim)?.data["link"])
            let page = try await EmailLink.follow(client, try EmailLink.path(of: claimLink)).html
            #expect(page.contains("another wallet") || page.contains("already"), "\(page)")
            let phoneUser = try #require(try await app.store.user(issuer: "default", phoneNormalized: SignupFixture.phone))
            #expect(!phoneUser.emailVerified)
            #expect(try await app.store.user(issuer: "default", emailNormalized: "ada@example.com")?.id != phoneUser.id)

            let later = try await SignupFixture.verifiedFlow(app, client, phone: "+4366011111111")
            let dropped = try await SignupFixture.finish(client, flow: later, phone: "+4366011111111", email: "ADA@example.com")
            #expect(dropped.status == .ok, "\(dropped.json)")
            #expect(try await app.store.outboxMessages().filter { $0.template == "email_verification" && $0.recipient == "ADA@example.com" }.isEmpty)
        }
    }
}

