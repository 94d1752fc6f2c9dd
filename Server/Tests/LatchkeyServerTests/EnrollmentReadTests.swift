import Foundation
import HummingbirdTesting
import LatchkeyAPI
import LatchkeyDomain
import LatchkeySQL
import LatchkeyServer
import LatchkeyTestSupport
import Testing

@Suite struct EnrollmentReadTests {
    // Typed through the contract's generated client: what an app generated from the document reads.
    @Test func mfaQuestionsWithMetadata() async throws {
        try await withServer { _, client in
            let questions = try await client.api(headers: appHeaders()).retrieveMfaQuestionsWithMetadata().ok.body.json
            #expect(questions.mfaQuestions.count >= 10)
            #expect(questions.numberOfRequiredQuestions == 3)
            #expect(questions.mfaQuestionsWithMetadata.count == questions.mfaQuestions.count)
            #expect(questions.mfaQuestionsWithMetadata.first?.isMandatory == false)
            #expect(questions.mfaQuestionsWithMetadata.first?.isNewQuestion == true)
        }
    }

    @Test func passwordAndPasscodeConfigurations() async throws {
        try await withServer(configure: { $0.issuer.password.passwordMinLength = 6; $0.issuer.password.passwordMaxLength = 12 }) { _, client in
            let api = client.api(headers: appHeaders())
            let password = try await api.retrievePasswordConfigurations().ok.body.json
            #expect(password.passwordMinLength == 6)
            #expect(password.passwordMaxLength == 12)
            #expect(password.validCharacters == "a-zA-Z0-9~!@#$%^&*()-{}")
            let passcode = try await api.retrievePasscodeConfigurations().ok.body.json
            #expect(passcode.length == 6)
            #expect(passcode.allowSameValues == false)
            #expect(passcode.numericOnly == true)
        }
    }

    @Test func profileMetadataHasTheSpecKeys() async throws {
        try await withServer { _, client in
            let metadata = try await client.api(headers: appHeaders()).retrieveProfileMetadata().ok.body.json
            let zip = try #require(metadata.addressInformation.first { $0.key == "ZIP_CODE" })
            #expect(zip.maxLength == 5)
            #expect(Set(metadata.contactInformation.map(\.key)) == ["EMAIL", "MOBILE_PHONE"])
            let phone = try #require(metadata.userProfile.first { $0.key == "MOBILE_NUMBER" })
            #expect(phone.canBeUsedToCreate == false)
            #expect(phone.updatesAllowed == false)
        }
    }

    @Test func operationalEndpoints() async throws {
        try await withServer { _, client in
            #expect(try await client.call(.get, "/health", headers: [:]).json["status"] as? String == "ok")
            let ready = try await client.call(.get, "/ready", headers: [:])
            #expect(ready.status == .ok)
            #expect(ready.json["database"] as? String == "sqlite")
            _ = try await client.call(.get, "/v1/enrollment/mfa-questions")
            try await client.execute(uri: "/metrics", method: .get) { response in
                #expect(response.status == .ok)
                #expect(String(buffer: response.body).contains("hb_requests"))
            }
        }
    }

    @Test func readyAnswers503WhenTheDatabaseIsGone() async throws {
        try await withServer { app, client in
            try await app.store.close()
            let ready = try await client.call(.get, "/ready", headers: [:])
            #expect(ready.status == .serviceUnavailable)
            #expect(ready.errorCode == 503)
            #expect(try await client.call(.get, "/health", headers: [:]).status == .ok)
        }
    }
}
