import Foundation
import Latchkey
import LatchkeyCore
import LatchkeyDomain
import LatchkeySQL
import LatchkeyServer
import Testing
import X509

/// The SDK's phone sign-up against a live server, as the document shows it.
@Suite struct SignupClientTests {
    static let phone = "+439999999999"

    static func code(_ app: LatchkeyApplication, excluding earlier: Set<String> = []) async throws -> String {
        let row = try #require(try await app.store.outboxMessages().last { $0.template == "otp" && !earlier.contains($0.id) })
        return try #require(app.cipher.open(row)?.data["code"])
    }

    static func failure<T>(_ body: () async throws -> T) async -> SignupFlowError? {
        do {
            _ = try await body()
            return nil
        } catch {
            return error as? SignupFlowError
        }
    }

    @Test(arguments: [false, true]) func theDocumentedSignupAuthenticatesOnlyAfterTheDeviceKey(sealed: Bool) async throws {
        try await withLiveServer(configure: {
            if sealed { sealEverything(&$0) }
            // The document's example password `000000`.
            $0.issuer.password.passwordMinLength = 6
            $0.issuer.rejectCommonPasswords = false
        }) { sdk, app in
            let delegate = await RecordingDelegate()
            await sdk.authentication.setDelegate(delegate)
            let signup = sdk.signup

            let started = try await signup.startSignupFlow(StartSignupRequest(phoneNumber: Self.phone))
            let verified = try await signup.verifyPhoneNumber(VerifyPhoneNumberRequest(flowID: started.flowID,
                                                                                      otp: try await Self.code(app)))
            #expect(verified.flowID == started.flowID)
            #expect(await sdk.authentication.state == .loggedOut)
            let finished = try await signup.finishSignupFlow(FinishSignupRequest(
                flowID: started.flowID, password: "000000", email: nil, firstName: "Pay User", lastName: "Test",
                phoneNumber: Self.phone))
            #expect(finished.flowID == started.flowID)

            let user = try #require(try await app.store.user(issuer: "default", phoneNormalized: Self.phone))
            #expect(await sdk.authentication.state == .authenticated(customerUri: "urn:latchkey:customer:\(user.id)"))
            #expect(await delegate.states(count: 2) == [.loggedOut, .authenticated(customerUri: "urn:latchkey:customer:\(user.id)")])
            let pem = try #require(await signup.deviceCertificate())
            let certificate = try Certificate(pemEncoded: pem)
            #expect(app.certificateAuthority.certificate.publicKey.isValidSignature(certificate.signature, for: certificate))
            #expect(try await app.store.deviceCertificates(userID: user.id, deviceID: "jkt:" + (try await sdk.deviceThumbprint())).count == 1)

            let customer = try await sdk.enrollment.retrieveCustomer()
            #expect(customer.firstName == "Pay User" && customer.username == Self.phone)
            let user2 = try #require(try await app.store.user(id: user.id))
            try await app.store.revokeSessions(userID: user2.id, except: nil, deviceID: nil, now: Date())
            _ = try? await sdk.enrollment.retrieveCustomer()
            #expect(await sdk.authentication.state == .loggedOut, "a 401 later logs out")
        }
    }

    @Test func refusalsAreShapedLikeTheDocuments() async throws {
        try await withLiveServer { sdk, app in
            let signup = sdk.signup
            let badNumber = await Self.failure { try await signup.startSignupFlow(StartSignupRequest(phoneNumber: "0664 123")) }
            guard case .signup(.otp(let otpError)) = badNumber else {
                Issue.record("an undeliverable code is .signup(.otp), got \(String(describing: badNumber))")
                return
            }
            #expect(otpError.field == "phoneNumber" && otpError.domain == .startSignupFlow)

            let started = try await signup.startSignupFlow(StartSignupRequest(phoneNumber: Self.phone))
            let code = try await Self.code(app)
            let wrong = await Self.failure {
                try await signup.verifyPhoneNumber(VerifyPhoneNumberRequest(flowID: started.flowID, otp: code == "123456" ? "654321" : "123456"))
            }
            guard case .signup(.verification(let verification)) = wrong else {
                Issue.record("a wrong code is .signup(.verification)")
                return
            }
            #expect(verification.id == "otp_invalid" && verification.code == .invalidParameter)
            let resend = await Self.failure { try await signup.startSignupFlow(StartSignupRequest(phoneNumber: "+4312345678")) }
            #expect(resend == nil, "another flow may send to another number")

            _ = try await signup.verifyPhoneNumber(VerifyPhoneNumberRequest(flowID: started.flowID, otp: code))
            let weak = await Self.failure {
                try await signup.finishSignupFlow(FinishSignupRequest(flowID: started.flowID, password: "short", email: nil,
                                                                      firstName: "Pay", lastName: "User", phoneNumber: Self.phone))
            }
            guard case .signup(.registration(let registration)) = weak else {
                Issue.record("a refused registration is .signup(.registration)")
                return
            }
            #expect(registration.id == "kratos_4000005" && registration.field == "password")
            #expect(await sdk.authentication.state == .loggedOut)
        }
    }
}
