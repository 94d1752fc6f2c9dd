#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
import Latchkey
import LatchkeyCore
import LatchkeyDomain
import LatchkeyServer
import Testing

/// The MFA prompt's factors and the wallet's second factors through the SDK, against a real
/// in-process server.
@Suite(.serialized) struct SecondFactorClientTests {
    /// A registered, verified wallet logged in on `sdk`'s device, and a client on a second,
    /// unlinked device.
    static func walletAndSecondDevice(_ sdk: LatchkeyClient, _ app: LatchkeyApplication) async throws -> LatchkeyClient {
        let registered = try await sdk.enrollment.registerNewUser(sampleProfile())
        try await AuthenticationClientTests.verifyEmail(app, server: sdk.context.serverURL)
        _ = try await sdk.authentication.loginByNonce(registered.nonce)
        var context = sdk.context
        context.deviceID = "second-device"
        return testClient(context: context)
    }

    static func prompt(_ client: LatchkeyClient) async throws -> MFAToken {
        guard case .mfaRequired(let token) = try await client.authentication.loginByUsernamePassword(
            username: "grace@example.com", password: "cobol-rules-1959") else {
            throw NoPrompt()
        }
        return token
    }

    /// An unlinked device was logged in without the MFA prompt.
    struct NoPrompt: Error {}

    @Test func thePromptOfAWalletWithQuestionsOnlyOffersTheQuestion() async throws {
        try await withLiveServer { sdk, app in
            let second = try await Self.walletAndSecondDevice(sdk, app)
            let token = try await Self.prompt(second)
            #expect(token.factors == [.question])
            #expect(token.passkeyOptions == nil, "options come only with a passkey to answer with")
            #expect(sampleProfile().mfaAnswers?[token.mfaSecretQuestion] != nil, "the spec's question stays as it was")
        }
    }

    /// `answerMFA` sends the one proof it is given: an authenticator code the prompt did not offer
    /// is refused like a wrong answer, in the prompting login's domain, and logs nothing in; the
    /// question's answer through `answerMFA` links the device as `registerWithMFA` does.
    @Test func answerMFAWithEachKindOfProof() async throws {
        try await withLiveServer { sdk, app in
            let second = try await Self.walletAndSecondDevice(sdk, app)
            let offered = try await Self.prompt(second)
            let refused = await failure { _ = try await second.authentication.answerMFA(offered, with: .totp("123456")) }
            #expect(refused?.code == .unauthorized)
            #expect(refused?.domain == .loginWithUsernamePassword)
            #expect(await second.authentication.state == .loggedOut)
            let recovery = await failure {
                _ = try await second.authentication.answerMFA(try await Self.prompt(second), with: .recoveryCode("abcd-efgh"))
            }
            #expect(recovery?.code == .unauthorized)
            let token = try await Self.prompt(second)
            let answer = try #require(sampleProfile().mfaAnswers?[token.mfaSecretQuestion])
            guard case .authenticated = try await second.authentication.answerMFA(token, with: .answer(answer)) else {
                Issue.record("the question's answer must log in")
                return
            }
            #expect(await second.authentication.state != .loggedOut)
        }
    }

    /// An authenticator app enrolled and confirmed through the SDK answers the prompt of a new
    /// phone; the enrollment's description shows no secret.
    @Test func anAuthenticatorAppAnswersThePrompt() async throws {
        try await withLiveServer { sdk, app in
            let second = try await Self.walletAndSecondDevice(sdk, app)
            // A password login makes the session privileged (the default `stepUp`); a nonce login does not.
            _ = try await sdk.authentication.loginByUsernamePassword(username: "grace@example.com", password: "cobol-rules-1959")
            let enrollment = try await sdk.factors.enrollTOTP()
            #expect(enrollment.uri.hasPrefix("otpauth://totp/"))
            #expect(!"\(enrollment)".contains(enrollment.secret.replacingOccurrences(of: " ", with: "").prefix(8)))
            let totp = TOTPCheck(secret: String(decoding: try #require(Self.base32(enrollment.secret)), as: UTF8.self))
            let now = TOTPCheck.step(of: Date())
            try await sdk.factors.confirmTOTP(totp.code(step: now))
            let (factors, policy) = try await sdk.factors.list()
            #expect(factors.map(\.kind).contains(.totp))
            #expect(policy.unknownDevice.contains(.totp))
            let token = try await Self.prompt(second)
            #expect(token.factors.contains(.totp) && token.factors.contains(.question))
            #expect(token.factors.firstIndex(of: .totp)! < token.factors.firstIndex(of: .question)!, "the app before the question")
            // The confirmation spent the current step: the next one (within the window) answers.
            guard case .authenticated = try await second.authentication.answerMFA(token, with: .totp(totp.code(step: now + 1))) else {
                Issue.record("the authenticator's code must log in")
                return
            }
        }
    }

    /// Recovery codes made through the SDK answer the prompt once each.
    @Test func aRecoveryCodeAnswersThePromptOnce() async throws {
        try await withLiveServer { sdk, app in
            let second = try await Self.walletAndSecondDevice(sdk, app)
            _ = try await sdk.authentication.loginByUsernamePassword(username: "grace@example.com", password: "cobol-rules-1959")
            let codes = try await sdk.factors.generateRecoveryCodes()
            #expect(codes.count == 10 && Set(codes).count == 10)
            let token = try await Self.prompt(second)
            #expect(token.factors.last == .recoveryCode)
            guard case .authenticated = try await second.authentication.answerMFA(token, with: .recoveryCode(codes[0])) else {
                Issue.record("a recovery code must log in")
                return
            }
            #expect(try await sdk.factors.list().factors.first { $0.kind == .recoveryCode }?.remaining == 9)
            var context = sdk.context
            context.deviceID = "third-device"
            let third = testClient(context: context)
            let reused = await failure { _ = try await third.authentication.answerMFA(try await Self.prompt(third), with: .recoveryCode(codes[0])) }
            #expect(reused?.code == .unauthorized, "a used recovery code is spent")
        }
    }

    /// RFC 4648 base32, the spaces of the grouped form ignored.
    static func base32(_ text: String) -> Data? {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")
        var bytes: [UInt8] = [], buffer = 0, bits = 0
        for character in text.uppercased() where character != " " && character != "=" {
            guard let value = alphabet.firstIndex(of: character) else { return nil }
            buffer = buffer << 5 | value
            bits += 5
            if bits >= 8 {
                bits -= 8
                bytes.append(UInt8(truncatingIfNeeded: buffer >> bits))
                buffer &= (1 << bits) - 1
            }
        }
        return Data(bytes)
    }
}
