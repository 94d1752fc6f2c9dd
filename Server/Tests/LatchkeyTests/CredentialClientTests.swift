import Foundation
import Latchkey
import LatchkeyCore
import LatchkeyDomain
import LatchkeySQL
import LatchkeyServer
import Synchronization
import Testing

@Suite struct CredentialClientTests {
    /// A registered, verified user logged in on the SDK's device: by the nonce (which links the
    /// device), then by PIN, as before a privileged change (a nonce login checks nothing the user
    /// knows).
    static func loggedIn(_ sdk: LatchkeyClient, _ app: LatchkeyApplication) async throws {
        let registered = try await sdk.enrollment.registerNewUser(sampleProfile())
        try await AuthenticationClientTests.verifyEmail(app, server: sdk.context.serverURL)
        _ = try await sdk.authentication.loginByNonce(registered.nonce)
        _ = try await sdk.authentication.loginByPIN("314159")
    }

    /// Run twice: plain, and with the issuer requiring every credential sealed.
    @Test(arguments: [false, true]) func customerAndCredentialChanges(sealed: Bool) async throws {
        let messages = ["kUserErrorUpdateUserCredentialsDomain.416": "That is not your current password."]
        try await withLiveServer(messages: messages, configure: { if sealed { sealEverything(&$0) } }) { sdk, app in
            try await Self.loggedIn(sdk, app)
            let enrollment = sdk.enrollment
            let customer = try await enrollment.retrieveCustomer()
            #expect(customer.username == "grace@example.com")
            #expect(customer.contactInformation.addressInformation?.zipCode == "10001")
            #expect(customer.additionalCustomerInformation?["opt_in_email"] == "false")

            let mismatch = await failure {
                try await enrollment.updateUserPassword(oldPassword: "cobol-rules-1959", newPassword: "new-pass-123",
                                                        confirmNewPassword: "new-pass-124")
            }
            #expect(mismatch?.code == .confirmationMismatch)
            #expect(mismatch?.kind == .validation)
            let rules = await failure {
                try await enrollment.updateUserPassword(oldPassword: "cobol-rules-1959", newPassword: "short",
                                                        confirmNewPassword: "short")
            }
            #expect(rules?.code == .passwordRules)
            let wrong = await failure {
                try await enrollment.updateUserPassword(oldPassword: "not-it-at-all", newPassword: "new-pass-123",
                                                        confirmNewPassword: "new-pass-123")
            }
            #expect(wrong?.code == .wrongCurrentCredential)
            #expect(wrong?.domain == .updateUserCredentials)
            #expect(wrong?.message == "That is not your current password.")
            try await enrollment.updateUserPassword(oldPassword: "cobol-rules-1959", newPassword: "new-pass-123",
                                                    confirmNewPassword: "new-pass-123")
            #expect(await sdk.authentication.state != .loggedOut, "the session that changed the password stays")

            let pin = await failure {
                try await enrollment.updateUserPasscode(oldPasscode: "314159", newPasscode: "123456", confirmNewPasscode: "123456")
            }
            #expect(pin?.code == .passcodeRules)
            try await enrollment.updateUserPasscode(oldPasscode: "314159", newPasscode: "271828", confirmNewPasscode: "271828")
            guard case .authenticated = try await sdk.authentication.loginByPIN("271828") else {
                Issue.record("the new PIN must log in")
                return
            }

            let questions = try await enrollment.retrieveMfaQuestionsWithMetadata().mfaQuestions
            let tooFew = await failure { try await enrollment.updateMFAAnswers([questions[0]: "a"]) }
            #expect(tooFew?.code == .invalidParameter)
            #expect(tooFew?.domain == .updateMfaAnswers)
            try await enrollment.updateMFAAnswers([questions[5]: "a", questions[6]: "b", questions[7]: "c"])
        }
    }

    @Test func profileUpdateConventionsThroughTheSDK() async throws {
        try await withLiveServer { sdk, app in
            try await Self.loggedIn(sdk, app)
            let enrollment = sdk.enrollment
            try await enrollment.updateUserProfile(ProfileUpdate(
                lastName: "Murray Hopper", additionalCustomerInformation: ["opt_in_email": nil, "tier": "gold"],
                addressInformation: AddressInformation(city: "Arlington", zipCode: "22201")))
            let customer = try await enrollment.retrieveCustomer()
            #expect(customer.firstName == "Grace")
            #expect(customer.lastName == "Murray Hopper")
            #expect(customer.additionalCustomerInformation == ["tier": "gold"])
            #expect(customer.contactInformation.addressInformation?.city == "Arlington")
            let phone = await failure { try await enrollment.updateUserProfile(ProfileUpdate(phone: "+15555550100")) }
            #expect(phone?.kind == .validation)
            #expect(phone?.field == "phone")
            #expect(phone?.domain == .updateUserProfile)
            _ = try await sdk.enrollment.registerNewUser(sampleProfile(email: "taken@example.com"))
            let taken = await failure { try await enrollment.updateUserProfile(ProfileUpdate(email: "taken@example.com")) }
            #expect(taken?.code == .emailInUse)
            #expect(taken?.kind == .server)
        }
    }

    /// A change that needs a recent login surfaces as the typed "log in again" error, and the
    /// session stays for everyday calls.
    /// A busy server's 503 `overloaded` reaches the app as a typed, retryable error with the delay.
    @Test func anOverloadedServerSaysWhenToRetry() async throws {
        try await withLiveServer(configure: { $0.hashing.maxQueueMilliseconds = 1; $0.hashing.logN = 12 }) { sdk, _ in
            let error = await failure {
                _ = try await sdk.authentication.loginByUsernamePassword(username: "grace@example.com", password: "cobol-rules-1959")
            }
            #expect(error?.kind == .overloaded && error?.id == .overloaded, "\(String(describing: error))")
            #expect(error?.retryAfter.map { $0 >= 1 } == true)
            #expect(error?.isRetryable == true)
        }
    }

    @Test func anOldSessionIsAskedToLogInAgain() async throws {
        let offset = Mutex<TimeInterval>(0)
        let clock: @Sendable () -> Date = { Date().addingTimeInterval(offset.withLock { $0 }) }
        try await withLiveServer(now: clock, serverNow: clock) { sdk, app in
            let registered = try await sdk.enrollment.registerNewUser(sampleProfile())
            try await AuthenticationClientTests.verifyEmail(app, server: sdk.context.serverURL)
            _ = try await sdk.authentication.loginByNonce(registered.nonce)
            offset.withLock { $0 = 901 }
            let error = await failure {
                _ = try await sdk.enrollment.updateUserPassword(oldPassword: "cobol-rules-1959", newPassword: "fresh-pass-42",
                                                                confirmNewPassword: "fresh-pass-42")
            }
            #expect(error?.kind == .reauthenticationRequired && error?.id == .sessionRefreshRequired, "\(String(describing: error))")
            #expect(await sdk.authentication.state != .loggedOut, "the session is not ended")
        }
    }

    @Test(arguments: [false, true]) func expiredPasswordAndResend(sealed: Bool) async throws {
        // The clock (the server's, and the SDK's that dates its proofs) moves past the password's
        // expiry; sessions outlive it, so the end of the session below is the password change's doing.
        let offset = Mutex<TimeInterval>(0)
        let clock: @Sendable () -> Date = { Date().addingTimeInterval(offset.withLock { $0 }) }
        try await withLiveServer(now: clock, serverNow: clock, configure: {
            $0.issuer.passwordExpiryDays = 30
            if sealed { sealEverything(&$0) }
            $0.issuer.sessions.idleTimeoutSeconds = 40 * 86_400
            $0.issuer.sessions.absoluteTimeoutSeconds = 40 * 86_400
        }) { sdk, app in
            let registered = try await sdk.enrollment.registerNewUser(sampleProfile())
            let message = try await sdk.enrollment.resendVerificationEmail("grace@example.com")
            #expect(message.contains("grace@example.com"))
            #expect(try await app.store.outboxMessages().count == 2)
            try await AuthenticationClientTests.verifyEmail(app, server: sdk.context.serverURL)
            _ = try await sdk.authentication.loginByNonce(registered.nonce)
            offset.withLock { $0 = 31 * 86_400 }
            let unknown = await failure {
                try await sdk.enrollment.changeExpiredPassword(email: "nobody@example.com", expiredPassword: "x",
                                                               newPassword: "fresh-pass-42", confirmNewPassword: "fresh-pass-42")
            }
            #expect(unknown?.code == .wrongCurrentCredential)
            #expect(unknown?.domain == .changePassword)
            try await sdk.enrollment.changeExpiredPassword(email: "grace@example.com", expiredPassword: "cobol-rules-1959",
                                                           newPassword: "fresh-pass-42", confirmNewPassword: "fresh-pass-42")
            let error = await failure { _ = try await sdk.authentication.currentSession() }
            #expect(error?.code == .notLoggedIn, "changing the password without a session ends every session")
            #expect(await sdk.authentication.state == .loggedOut)
        }
    }
}

@Suite struct ResetClientTests {
    @Test func forgottenCredentialRequests() async throws {
        let messages = ["kUserErrorResetForgottenCredentialsDomain.410": "No wallet uses that address."]
        try await withLiveServer(messages: messages) { sdk, app in
            _ = try await sdk.enrollment.registerNewUser(sampleProfile())
            try await AuthenticationClientTests.verifyEmail(app, server: sdk.context.serverURL)
            let enrollment = sdk.enrollment

            let malformed = await failure { _ = try await enrollment.resetForgottenPassword("grace-at-example") }
            #expect(malformed?.code == .invalidParameter && malformed?.kind == .validation)
            let unknown = await failure { _ = try await enrollment.resetForgottenPasscode("nobody@example.com") }
            #expect(unknown?.code == .unknownEmail)
            #expect(unknown?.domain == .resetForgottenCredentials)
            #expect(unknown?.message == "No wallet uses that address.")

            let password = try await enrollment.resetForgottenPassword("grace@example.com")
            #expect(password.mfaQuestions == nil)
            #expect(!password.message.isEmpty)
            let passcode = try await enrollment.resetForgottenPasscode("grace@example.com")
            #expect(passcode.mfaQuestions == nil)
            let templates = try await app.store.outboxMessages().map(\.template)
            #expect(templates.contains("password_reset") && templates.contains("passcode_reset"))
        }
    }
}
