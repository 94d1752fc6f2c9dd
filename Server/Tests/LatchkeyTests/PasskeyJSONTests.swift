import Foundation
import Latchkey
import LatchkeyCore
import Testing

/// WebAuthn's JSON forms as the SDK reads and writes them (Level 3 §5.1, §5.4, §5.5): what the
/// platform authenticator is given, and what the server is sent.
@Suite struct PasskeyJSONTests {
    /// Creation options as a WebAuthn server writes them (the shape of py_webauthn's
    /// `options_to_json`).
    static let creation = Data("""
        {"rp":{"id":"wallet.example.com","name":"Example Wallet"},
         "user":{"id":"AAECAwQFBgcICQoLDA0ODw","name":"grace@example.com","displayName":"Grace Hopper"},
         "challenge":"q83vEjRWeJCrze8SNFZ4kKvN7xI0VniQq83vEjRWeJA",
         "pubKeyCredParams":[{"type":"public-key","alg":-7},{"type":"public-key","alg":-8}],
         "timeout":300000,
         "excludeCredentials":[{"type":"public-key","id":"_-8","transports":["internal"]}],
         "authenticatorSelection":{"residentKey":"required","userVerification":"required"},
         "attestation":"none"}
        """.utf8)

    @Test func creationOptionsGiveTheAuthenticatorsValuesDecoded() throws {
        let options = try PasskeyRegistrationOptions(json: Self.creation)
        #expect(options.relyingPartyID == "wallet.example.com")
        #expect(options.relyingPartyName == "Example Wallet")
        #expect(options.userID == Data(0..<16))
        #expect(options.challenge == Data(Array(repeating: [0xab, 0xcd, 0xef, 0x12, 0x34, 0x56, 0x78, 0x90], count: 4).joined()))
        #expect((options.userName, options.userDisplayName) == ("grace@example.com", "Grace Hopper"))
        #expect(options.excludedCredentialIDs == [Data([0xff, 0xef])], "\"_-8\" is base64url, not base64")
        #expect(options.algorithms == [-7, -8])
        #expect(options.timeout == .seconds(300))
        #expect(options.userVerification == "required")
    }

    @Test func requestOptionsOfADiscoverableLoginAndOfThePrompt() throws {
        let discoverable = try PasskeyAssertionOptions(json: Data("""
            {"challenge":"AQID","rpId":"wallet.example.com","userVerification":"preferred","timeout":60000}
            """.utf8))
        #expect(discoverable.relyingPartyID == "wallet.example.com")
        #expect(discoverable.challenge == Data([1, 2, 3]))
        #expect(discoverable.allowedCredentialIDs.isEmpty, "a discoverable login names no passkey")
        #expect(discoverable.timeout == .seconds(60))
        let prompt = try PasskeyAssertionOptions(json: Data("""
            {"challenge":"AQID","rpId":"wallet.example.com",
             "allowCredentials":[{"type":"public-key","id":"AAE"},{"type":"public-key","id":"AgM","transports":["hybrid"]}]}
            """.utf8))
        #expect(prompt.allowedCredentialIDs == [Data([0, 1]), Data([2, 3])])
        #expect(prompt.userVerification == nil)
    }

    /// Binary members in any form but unpadded base64url are refused, naming the member: one
    /// value, one spelling, as the server reads what the SDK sends.
    @Test(arguments: [
        (#""challenge":"AQI=""#, "challenge"), (#""challenge":"+/8""#, "challenge"), (#""challenge":"""#, "challenge"),
        (#""challenge":"AQI","allowCredentials":[{"type":"public-key","id":"A B"}]"#, "allowCredentials.id"),
        (#""challenge":"AQI","rpId":"""#, "rpId"), (#""challenge":"AQI""#, "rpId"),
    ])
    func malformedRequestOptionsNameTheMember(members: String, field: String) {
        var rpID = #","rpId":"wallet.example.com""#
        if field == "rpId" { rpID = "" }
        let json = Data("{\(members)\(rpID)}".utf8)
        #expect(throws: LatchkeyError.self) { try PasskeyAssertionOptions(json: json) }
        do {
            _ = try PasskeyAssertionOptions(json: json)
        } catch {
            #expect(error.id == .unexpectedAnswer)
            #expect(error.field == field, "\(members)")
        }
    }

    @Test func malformedCreationOptionsNameTheMember() throws {
        var text = String(decoding: Self.creation, as: UTF8.self)
        text = text.replacingOccurrences(of: "AAECAwQFBgcICQoLDA0ODw", with: "AAECAwQFBgcICQoLDA0ODw==")
        do {
            _ = try PasskeyRegistrationOptions(json: Data(text.utf8))
            Issue.record("a padded user id was read")
        } catch {
            #expect(error.field == "user.id")
        }
        let noRP = String(decoding: Self.creation, as: UTF8.self).replacingOccurrences(of: #""id":"wallet.example.com","#, with: "")
        do {
            _ = try PasskeyRegistrationOptions(json: Data(noRP.utf8))
            Issue.record("options without rp.id were read")
        } catch {
            #expect(error.field == "rp.id")
        }
        do {
            _ = try PasskeyRegistrationOptions(json: Data(#"{"challenge":"AQID"}"#.utf8))
            Issue.record("options without rp and user were read")
        } catch {
            #expect(error.id == .unexpectedAnswer)
        }
    }

    @Test func registrationResponseIsWebAuthnsJSON() throws {
        let registration = PasskeyRegistration(credentialID: Data([0xfb, 0xff, 0x01]), clientDataJSON: Data(#"{"type":"webauthn.create"}"#.utf8),
                                               attestationObject: Data([0xa3, 0x63]), transports: ["internal"])
        let json = try #require(try JSONSerialization.jsonObject(with: registration.json) as? [String: Any])
        #expect(json["id"] as? String == "-_8B", "base64url, no padding")
        #expect(json["rawId"] as? String == "-_8B")
        #expect(json["type"] as? String == "public-key")
        #expect(json["authenticatorAttachment"] as? String == "platform")
        #expect((json["clientExtensionResults"] as? [String: Any])?.isEmpty == true)
        let response = try #require(json["response"] as? [String: Any])
        #expect(response["clientDataJSON"] as? String == Data(#"{"type":"webauthn.create"}"#.utf8).base64URL)
        #expect(response["attestationObject"] as? String == "o2M")
        #expect(response["transports"] as? [String] == ["internal"])
    }

    @Test func authenticationResponseLeavesOutAnEmptyUserHandle() throws {
        func response(_ handle: Data?) throws -> [String: Any] {
            let assertion = PasskeyAssertion(credentialID: Data([1]), clientDataJSON: Data("{}".utf8), authenticatorData: Data([2, 3]),
                                             signature: Data([0x30, 0x44]), userHandle: handle)
            let json = try #require(try JSONSerialization.jsonObject(with: assertion.json) as? [String: Any])
            #expect(json["id"] as? String == "AQ" && json["rawId"] as? String == "AQ")
            #expect(json["type"] as? String == "public-key")
            return try #require(json["response"] as? [String: Any])
        }
        let signed = try response(Data("user-handle".utf8))
        #expect(signed["authenticatorData"] as? String == "AgM")
        #expect(signed["signature"] as? String == "MEQ")
        #expect(signed["clientDataJSON"] as? String == "e30")
        #expect(signed["userHandle"] as? String == Data("user-handle".utf8).base64URL)
        #expect(try response(nil)["userHandle"] == nil)
        #expect(try response(Data())["userHandle"] == nil, "Apple answers an empty userID for a passkey with none")
    }
}
