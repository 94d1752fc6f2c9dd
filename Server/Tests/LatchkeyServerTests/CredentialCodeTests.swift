import Foundation
import LatchkeyAPI
import HummingbirdTesting
import LatchkeyDomain
import LatchkeySQL
import LatchkeyServer
import LatchkeyTestSupport
import Testing

/// The documented codes of the credential calls not covered by the flows of ProfileTests.
@Suite struct CredentialCodeTests {
    @Test func passcodeLockAndLockout() async throws {
        try await withServer(configure: { $0.issuer.lockout.walletThreshold = 2 }) { app, client in
            let session = try await AuthFixture.enrolledSession(app, client)
            func change(_ body: [String: String]) async throws -> JSONAnswer {
                try await client.call(.put, "/v1/profile/passcode", headers: appHeaders(session: session), body: body)
            }
            let missing = try await change(["newPasscode": "271828", "confirmNewPasscode": "271828"])
            #expect(missing.errorCode == 400)
            #expect(missing.errorField == "oldPasscode")
            let user = try #require(try await app.store.user(issuer: "default", emailNormalized: "ada@example.com"))
            try await app.store.setLocked(userID: user.id, locked: true)
            let locked = try await change(["oldPasscode": AuthFixture.pin, "newPasscode": "271828", "confirmNewPasscode": "271828"])
            #expect(locked.errorCode == 424)
            #expect(Int(locked.status.code) == 423)
            try await app.store.setLocked(userID: user.id, locked: false)
            var codes: [Int] = []
            for _ in 0..<2 {
                codes.append(try await change(["oldPasscode": "000000", "newPasscode": "271828",
                                               "confirmNewPasscode": "271828"]).errorCode ?? 0)
            }
            #expect(codes == [416, 421])
            #expect(try await client.call(.put, "/v1/profile/mfa-answers",
                                          body: ["mfaAnswers": ["a": "b"]]).errorCode == 403, "not logged in")
        }
    }

    @Test func expiredPasswordCodes() async throws {
        try await withServer(configure: { $0.issuer.lockout.walletThreshold = 2 }) { app, client in
            _ = try await AuthFixture.enrolledSession(app, client)
            func change(_ body: [String: String]) async throws -> JSONAnswer {
                try await client.call(.post, "/v1/enrollment/expired-password", body: body)
            }
            let missing = try await change(["email": "ada@example.com", "newPassword": "x", "confirmNewPassword": "x"])
            #expect(missing.errorField == "expiredPassword")
            #expect(try await change(["email": "ada@example.com", "expiredPassword": AuthFixture.password,
                                      "newPassword": "fresh-pass-42", "confirmNewPassword": "fresh-pass-43"]).errorCode == 417)
            let user = try #require(try await app.store.user(issuer: "default", emailNormalized: "ada@example.com"))
            try await app.store.setLocked(userID: user.id, locked: true)
            #expect(try await change(["email": "ada@example.com", "expiredPassword": AuthFixture.password,
                                      "newPassword": "fresh-pass-42", "confirmNewPassword": "fresh-pass-42"]).errorCode == 424)
            try await app.store.setLocked(userID: user.id, locked: false)
            var codes: [Int] = []
            for _ in 0..<2 {
                codes.append(try await change(["email": "ada@example.com", "expiredPassword": "wrong-one-1",
                                               "newPassword": "fresh-pass-42", "confirmNewPassword": "fresh-pass-42"]).errorCode ?? 0)
            }
            #expect(codes == [416, 421], "from the linked device, as the spec says")
        }
    }

    @Test func expiredPasswordChangesFromUnlinkedDevicesNeverDeactivate() async throws {
        try await withServer(configure: { $0.issuer.lockout.walletThreshold = 2 }) { app, client in
            _ = try await AuthFixture.enrolledSession(app, client)
            var codes: [Int] = []
            for _ in 0..<4 {
                codes.append(try await client.call(.post, "/v1/enrollment/expired-password", headers: appHeaders(device: "stranger"),
                                                   body: ["email": "ada@example.com", "expiredPassword": "wrong-one-1",
                                                          "newPassword": "fresh-pass-42", "confirmNewPassword": "fresh-pass-42"])
                    .errorCode ?? 0)
            }
            #expect(codes == [416, 416, 416, 416])
            #expect(try await AuthFixture.passwordLogin(client).login?.sessionToken != nil)
        }
    }

    @Test func pinLoginAnswers508WhenThePasswordExpired() async throws {
        let clock = TestClock(start: Date())
        try await withServer(clock: clock, configure: { $0.issuer.passwordExpiryDays = 10 }) { app, client in
            _ = try await AuthFixture.enrolledSession(app, client)
            clock.advance(11 * 86_400)
            #expect(try await client.call(.post, "/v1/auth/login/pin", body: ["pin": AuthFixture.pin]).errorCode == 508)
        }
    }
}
