import Foundation
import LatchkeyDomain
import LatchkeySQL
import LatchkeyServer
import Testing

@Suite struct ConfigurationTests {
    @Test func defaultsMatchTheDesign() throws {
        let configuration = try ServerConfiguration.parse(yaml: "")
        #expect(configuration == ServerConfiguration())
        #expect(configuration.host == "127.0.0.1")
        #expect(configuration.port == 8080)
        #expect(configuration.database == "sqlite:./latchkey.sqlite")
        #expect(configuration.courier.channel == .log)
        #expect(configuration.hashing == HashingSettings(logN: 15, r: 8, p: 3))
        #expect(configuration.issuer.password.passwordMinLength == 8)
        #expect(configuration.issuer.password.passwordMaxLength == 64)
        #expect(configuration.issuer.passcode.length == 6)
        #expect(configuration.issuer.mfa.questions.count >= 10)
        #expect(configuration.issuer.otp.lifetimeSeconds == 300)
        #expect(configuration.issuer.otp.maxAttempts == 5)
    }

    @Test func readsTheDesignExample() throws {
        let yaml = """
            courier: { channel: webhook, url: "http://127.0.0.1:9000/messages" }
            hashing: { algorithm: scrypt, logN: 15, r: 8, p: 3 }
            rateLimits: { enabled: true, requestsPerMinutePerIP: 300, credentialAttemptsPerMinutePerAccount: 10 }
            issuer:
              name: Demo Wallet
              password: { required: true, passwordMinLength: 6, passwordMaxLength: 12,
                          requiredLowerCaseCharacters: false, requiredUpperCaseCharacters: false,
                          requiredNumericCharacters: false, validCharacters: "a-zA-Z0-9~!@#$%^&*()-{}" }
              passcode: { validationEnabled: true, length: 6, numericOnly: true, allowSameValues: false,
                          allowIncrementalValues: false, regularExpression: "0-9" }
              mfa: { numberOfRequiredQuestions: 1, caseInsensitiveAnswers: true,
                     questions: [ { mfaQuestion: "What was the name of your first pet?", isMandatory: false } ] }
              emailVerificationRequired: true
              appInstanceVerificationSeconds: 600
              passwordExpiryDays: 0
              passwordHistory: 5
              lockout: { walletThreshold: 5, deviceThreshold: 10 }
              deviceAuthentication: { enabled: true, lifetimeDays: 90 }
              otp: { length: 6, lifetimeSeconds: 300, maxAttempts: 5 }
              identityProviders: [ { id: example, issuer: "http://127.0.0.1:9400", clientId: wallet,
                                     clientSecret: secret, redirectUri: "com.example.wallet:/oauth" } ]
            """
        let configuration = try ServerConfiguration.parse(yaml: yaml)
        #expect(configuration.courier.channel == .webhook)
        #expect(configuration.courier.url == "http://127.0.0.1:9000/messages")
        #expect(configuration.issuer.name == "Demo Wallet")
        #expect(configuration.issuer.password.passwordMaxLength == 12)
        #expect(configuration.issuer.mfa.questions.count == 1)
        #expect(configuration.issuer.identityProviders.first?.clientId == "wallet")
    }

    @Test func jsonIsAccepted() throws {
        let configuration = try ServerConfiguration.parse(yaml: #"{"port": 9090, "issuer": {"otp": {"length": 8}}}"#)
        #expect(configuration.port == 9090)
        #expect(configuration.issuer.otp.length == 8)
        #expect(configuration.issuer.otp.maxAttempts == 5)
    }

    /// The keys a file may set are read off the settings' declaration: those whose default is
    /// nil, and the keys of lists' elements where the default list is empty, included.
    @Test func theAcceptedKeysAreTheDeclaredOnes() throws {
        let shapes = SettingKeys.server.shapes
        for key in ["publicURL", "courier.path", "courier.url", "http.metricsToken", "admin.consoleURL",
                    "issuer.identityProviders[].clientSecret", "issuer.identityProviders[].timeoutSeconds",
                    "secrets.previousSealKeys[].file", "secrets.previousSealKeys[].until", "issuer.mfa.questions[].isMandatory"] {
            #expect(shapes[key] == .value, "\(key)")
        }
        #expect(shapes["admin"] == .mapping && shapes["issuer.identityProviders"] == .list && shapes["issuer.identityProviders[]"] == .mapping)
        #expect(shapes["http.trustedProxies"] == .list && shapes["adminn"] == nil)
        let configuration = try ServerConfiguration.parse(yaml: """
            publicURL: null
            http: { metricsToken: scraper-secret }
            admin: { consoleURL: "https://console.example" }
            """)
        #expect(configuration.http.metricsToken == "scraper-secret" && configuration.admin.consoleURL == "https://console.example")
        #expect(configuration.publicURL == nil)
    }

    /// `latchkey operators create` (another process than the server) prints a whole link only
    /// where the configuration tells the console's address; a port 0 is picked by the server.
    @Test func theSetupLinkIsWholeOnlyWhereTheConsolesAddressIsKnown() {
        var configuration = ServerConfiguration()
        configuration.admin.enabled = true
        #expect(configuration.consoleSetupLink(token: "t").link == "http://127.0.0.1:8081/console/setup?token=t")
        #expect(configuration.consoleSetupLink(token: "t").note == nil)
        configuration.admin.port = 0
        let picked = configuration.consoleSetupLink(token: "t")
        #expect(picked.link == "/console/setup?token=t" && picked.note?.contains("admin.port is 0") == true, "\(picked)")
        configuration.admin.consoleURL = "https://console.example/"
        #expect(configuration.consoleSetupLink(token: "t").link == "https://console.example/console/setup?token=t")
        configuration.admin.consoleURL = nil
        configuration.admin.onPublicPort = true
        configuration.port = 0
        #expect(configuration.consoleSetupLink(token: "t").note?.contains("port is 0") == true)
        configuration.publicURL = "https://wallet.example"
        #expect(configuration.consoleSetupLink(token: "t").link == "https://wallet.example/console/setup?token=t")
    }

    @Test(arguments: [
        ("issuer:\n  pasword: {}", "issuer.pasword"),
        ("issuer:\n  otp: { length: 6, lifetime: 3 }", "issuer.otp.lifetime"),
        ("issuer:\n  otp: { length: six }", "issuer.otp.length"),
        ("hashing: { logN: 40 }", "hashing.logN"),
        ("courier: { channel: pigeon }", "courier.channel"),
        ("courier: { channel: webhook }", "courier.url"),
        ("courier: { channel: file }", "courier.path"),
        ("issuer:\n  mfa: { numberOfRequiredQuestions: 30 }", "issuer.mfa.numberOfRequiredQuestions"),
        ("issuer:\n  mfa: { questions: [ { mfaQuestion: a, mandatory: true } ] }", "issuer.mfa.questions[0].mandatory"),
        ("issuer:\n  password: { passwordMinLength: 10, passwordMaxLength: 9 }", "issuer.password.passwordMaxLength"),
        ("port: 70000", "port"),
        ("issuer:\n  identityProviders: [ { id: a, issuer: \"ftp://x\", clientId: c, redirectUri: r } ]", "issuer.identityProviders[0].issuer"),
        ("issuer:\n  identityProviders: [ { id: a, issuer: \"http://x\", clientId: c, redirectUri: r, timeoutSeconds: 0 } ]",
         "issuer.identityProviders[0].timeoutSeconds"),
        ("issuer:\n  reset: { linkLifetimeMinutes: 0 }", "issuer.reset.linkLifetimeMinutes"),
        ("issuer:\n  otp: { maxSendsPerFlow: 0 }", "issuer.otp.maxSendsPerFlow"),
        ("issuer: 3", "issuer"),
        ("secrets: { previousSealKeys: [ { file: old.pem, untill: \"2026-12-08T00:00:00Z\" } ] }", "secrets.previousSealKeys[0].untill"),
        ("issuer:\n  identityProviders: [ { id: a, issuer: \"http://x\", clientId: c, redirectUri: r, timeout: 5 } ]",
         "issuer.identityProviders[0].timeout"),
        ("admin: { consoleURL: \"ftp://console.example\" }", "admin.consoleURL"),
        // The issuer's field metadata, each problem by its path.
        ("issuer:\n  fields: { addressInformation: { ZIP_CODE: { regex: \"[0-9\" } } }", "issuer.fields.addressInformation.ZIP_CODE.regex"),
        ("issuer:\n  fields: { userProfile: { FIRST_NAME: { minLength: 9, maxLength: 4 } } }", "issuer.fields.userProfile.FIRST_NAME.minLength"),
        ("issuer:\n  fields: { userProfile: { NICKNAME: { required: true } } }", "issuer.fields.userProfile.NICKNAME"),
        ("issuer:\n  fields: { userProfile: { FIRST_NAME: { maxLenght: 9 } } }", "issuer.fields.userProfile.FIRST_NAME.maxLenght"),
        ("issuer:\n  fields: { billing: { CITY: { required: true } } }", "issuer.fields.billing"),
        ("issuer:\n  fields: { additionalCustomerInformation: { loyalty: { regex: \"[0-9]+\", defaultValue: abc } } }",
         "issuer.fields.additionalCustomerInformation.loyalty.defaultValue"),
        ("issuer:\n  fields: { additionalCustomerInformation: { loyalty: { additionalDataValidations: [ { regex: \"(\" } ] } } }",
         "issuer.fields.additionalCustomerInformation.loyalty.additionalDataValidations[0].regex"),
        ("issuer:\n  fields: { userProfile: { FIRST_NAME: { required: maybe } } }", "issuer.fields.userProfile.FIRST_NAME.required"),
        ("issuer:\n  fields: { additionalCustomerInformation: { \"a/b\": { required: true } } }", "issuer.fields.additionalCustomerInformation.a/b"),
        ("issuer:\n  fields: { userProfile: { MOBILE_NUMBER: { defaultValue: \"+15550100\" } } }",
         "issuer.fields.userProfile.MOBILE_NUMBER.defaultValue"),
        ("issuer:\n  fields: { userProfile: { MOBILE_NUMBER: { updatesAllowed: true } } }", "issuer.fields.userProfile.MOBILE_NUMBER"),
        ("issuer:\n  fields: { userProfile: { EMAIL: { required: false } } }", "issuer.fields.userProfile.EMAIL"),
        ("issuer:\n  fields: { addressInformation: { CITY: { required: true, canBeUsedToCreate: false } } }",
         "issuer.fields.addressInformation.CITY.required"),
        ("issuer:\n  fields: { addressInformation: { CITY: { additionalDataValidations: [ { regexp: \"x\" } ] } } }",
         "issuer.fields.addressInformation.CITY.additionalDataValidations[0].regexp"),
        ("issuer:\n  fields: { userProfile: { EXTERNAL_ID: { required: true, updatesAllowed: false } } }",
         "issuer.fields.userProfile.EXTERNAL_ID.updatesAllowed"),
        ("issuer:\n  fields: { addressInformation: { CITY: { regex: \"(?x) [a-z]+ # letters\" } } }", "issuer.fields.addressInformation.CITY.regex"),
        ("issuer:\n  fields: { addressInformation: { CITY: { regex: \"\\\\Qa.b\" } } }", "issuer.fields.addressInformation.CITY.regex"),
    ])
    func badKeysAreNamed(_ yaml: String, _ key: String) {
        #expect(throws: ConfigurationError.self) { try ServerConfiguration.parse(yaml: yaml) }
        do { _ = try ServerConfiguration.parse(yaml: yaml) } catch let error as ConfigurationError {
            #expect(error.key == key, "\(error)")
        } catch { Issue.record("unexpected \(error)") }
    }
}
