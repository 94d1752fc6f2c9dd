import Foundation
import HummingbirdTesting
import LatchkeyServer
import Testing

@Suite struct EnrollmentReadTests {
    @Test func mfaQuestionsWithMetadata() async throws {
        try await withServer { _, client in
            let answer = try await client.call(.get, "/v1/enrollment/mfa-questions")
            #expect(answer.status == .ok)
            let questions = try #require(answer.json["mfaQuestions"] as? [String])
            #expect(questions.count >= 10)
            #expect(answer.json["numberOfRequiredQuestions"] as? Int == 3)
            let metadata = try #require(answer.json["mfaQuestionsWithMetadata"] as? [[String: Any]])
            #expect(metadata.count == questions.count)
            #expect(metadata.first?["isMandatory"] as? Bool == false)
            #expect(metadata.first?["isNewQuestion"] as? Bool == true)
        }
    }

    @Test func passwordAndPasscodeConfigurations() async throws {
        try await withServer(configure: { $0.issuer.password.passwordMinLength = 6; $0.issuer.password.passwordMaxLength = 12 }) { _, client in
            let password = try await client.call(.get, "/v1/enrollment/password-configuration")
            #expect(password.status == .ok)
            #expect(password.json["passwordMinLength"] as? Int == 6)
            #expect(password.json["passwordMaxLength"] as? Int == 12)
            #expect(password.json["validCharacters"] as? String == "a-zA-Z0-9~!@#$%^&*()-{}")
            let passcode = try await client.call(.get, "/v1/enrollment/passcode-configuration")
            #expect(passcode.json["length"] as? Int == 6)
            #expect(passcode.json["allowSameValues"] as? Bool == false)
            #expect(passcode.json["numericOnly"] as? Bool == true)
        }
    }

    @Test func profileMetadataHasTheSpecKeys() async throws {
        try await withServer { _, client in
            let answer = try await client.call(.get, "/v1/enrollment/profile-metadata")
            #expect(answer.status == .ok)
            let address = try #require(answer.json["addressInformation"] as? [[String: Any]])
            let zip = try #require(address.first { $0["key"] as? String == "ZIP_CODE" })
            #expect(zip["maxLength"] as? Int == 5)
            let contact = try #require(answer.json["contactInformation"] as? [[String: Any]])
            #expect(Set(contact.compactMap { $0["key"] as? String }) == ["EMAIL", "MOBILE_PHONE"])
            let profile = try #require(answer.json["userProfile"] as? [[String: Any]])
            let phone = try #require(profile.first { $0["key"] as? String == "MOBILE_NUMBER" })
            #expect(phone["canBeUsedToCreate"] as? Bool == false)
            #expect(phone["updatesAllowed"] as? Bool == false)
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
