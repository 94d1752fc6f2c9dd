import Foundation
import HTTPTypes
import HummingbirdTesting
import LatchkeyDomain
import LatchkeyServer
import LatchkeyTestSupport
import Testing

/// Messages are written from templates in the customer's language: the app's `Accept-Language`
/// is recorded with the wallet at registration and login, and the messages about the wallet use
/// it; an issuer replaces templates and adds languages from `courier.templates`.
@Suite struct MessageTemplateTests {
    static let german = "de-DE,de;q=0.9,en;q=0.5"

    func headers(_ languages: String?, device: String = "device-1") -> HTTPFields {
        var headers = appHeaders(device: device)
        if let languages { headers[.acceptLanguage] = languages }
        return headers
    }

    /// The newest message of `template` to `recipient`, opened.
    func message(_ app: LatchkeyApplication, _ template: String, to recipient: String = "ada@example.com") async throws -> OutgoingMessage {
        let row = try #require(try await app.store.outboxMessages().last { $0.recipient == recipient && $0.template == template })
        return try #require(app.cipher.open(row))
    }

    @Test(arguments: TestEnvironment.engines)
    func aGermanPhoneGetsGermanMessagesAndKeepsItsLanguage(engine: String) async throws {
        try await withServer(engine: engine) { app, client in
            let created = try await client.call(.post, "/v1/enrollment/users", headers: headers(Self.german), body: registrationBody())
            #expect(created.status == .created, "\(created.json)")
            let user = try #require(try await app.store.user(issuer: "default", emailNormalized: "ada@example.com"))
            #expect(user.languages == "de, en", "the preference is recorded as a header value")

            let verification = try await message(app, "email_verification")
            #expect(verification.language == "de")
            #expect(verification.subject == "Bestätigen Sie Ihre E-Mail-Adresse für Latchkey Wallet")
            #expect(verification.body.hasPrefix("Hallo Ada,\n\nÖffnen Sie diesen Link"), "\(verification.body)")
            #expect(verification.body.contains(try #require(verification.data["link"])))
            let html = try #require(verification.html)
            #expect(html.contains("<html lang=\"de\">") && html.contains("Hallo Ada,") && html.contains("läuft in 24 Stunden ab"))
            #expect(!verification.body.contains("Verify") && !html.contains("Verify"))

            // The reset link is asked for without a header (a browser, another app): the wallet's
            // recorded language writes it.
            try await AuthFixture.verifyEmail(app, client)
            #expect(try await client.call(.post, "/v1/enrollment/password-reset", body: ["email": "ada@example.com"]).status == .ok)
            let reset = try await message(app, "password_reset")
            #expect(reset.language == "de")
            #expect(reset.subject == "Setzen Sie Ihr Latchkey Wallet-Passwort zurück")
            #expect(reset.body.contains("läuft in 30 Minuten ab"))
        }
    }

    @Test(arguments: TestEnvironment.engines)
    func withoutAHeaderMessagesAreEnglishAndALoginUpdatesTheLanguages(engine: String) async throws {
        try await withServer(engine: engine) { app, client in
            let nonce = try await AuthFixture.register(client)
            let user = try #require(try await app.store.user(issuer: "default", emailNormalized: "ada@example.com"))
            #expect(user.languages == nil)
            let verification = try await message(app, "email_verification")
            #expect(verification.language == "en")
            #expect(verification.subject == "Verify your email for Latchkey Wallet")
            #expect(verification.body.hasPrefix("Hello Ada,\n\nOpen this link to verify your email address for Latchkey Wallet:\n"))
            #expect(verification.html?.contains("<html lang=\"en\">") == true)

            try await AuthFixture.verifyEmail(app, client)
            let login = try await client.call(.post, "/v1/auth/login/nonce", headers: headers("fr-CH, de;q=0.7"), body: ["nonce": nonce])
            #expect(login.status == .ok, "\(login.json)")
            #expect(try await app.store.user(id: user.id)?.languages == "fr, de", "a login with other languages records them")
            #expect(try await AuthFixture.passwordLogin(client).status == .ok)
            #expect(try await app.store.user(id: user.id)?.languages == "fr, de", "a login without the header keeps them")

            // No French templates: the next best the customer reads, German.
            #expect(try await client.call(.post, "/v1/enrollment/passcode-reset", body: ["email": "ada@example.com"]).status == .ok)
            let reset = try await message(app, "passcode_reset")
            #expect(reset.language == "de" && reset.subject == "Setzen Sie Ihre Latchkey Wallet-PIN zurück")
        }
    }

    /// An issuer whose default language is German writes German to a customer whose app names no
    /// language the templates have, as its API and pages answer German then.
    @Test func theIssuersDefaultLanguageWritesWhenTheCustomersHasNoTemplate() async throws {
        try await withServer(configure: { $0.languages.default = "de" }) { app, client in
            let created = try await client.call(.post, "/v1/enrollment/users", headers: headers("ja-JP"), body: registrationBody())
            #expect(created.status == .created, "\(created.json)")
            let verification = try await message(app, "email_verification")
            #expect(verification.language == "de")
            #expect(verification.subject == "Bestätigen Sie Ihre E-Mail-Adresse für Latchkey Wallet")
        }
    }

    @Test func aNameIsEscapedInHTMLAndPrintedAsItIsInText() async throws {
        try await withServer { app, client in
            let body = registrationBody { $0["firstName"] = "<script>x</script>" }
            let created = try await client.call(.post, "/v1/enrollment/users", body: body)
            try #require(created.status == .created, "\(created.json)")
            let verification = try await message(app, "email_verification")
            #expect(verification.body.hasPrefix("Hello <script>x</script>,"))
            let html = try #require(verification.html)
            #expect(html.contains("Hello &lt;script&gt;x&lt;/script&gt;,"))
            #expect(!html.contains("<script>"))
        }
    }

    /// Attack: a quote followed by a combining mark in a name is one character that is not a
    /// quote, which swift-mustache's default escaping wrote as it came; the HTML body escapes the
    /// quote byte (`HTMLText`).
    @Test func aQuoteWithACombiningMarkIsEscapedInHTML() async throws {
        try await withServer { app, client in
            let body = registrationBody { $0["firstName"] = "Ad\"\u{301}a" }
            let created = try await client.call(.post, "/v1/enrollment/users", body: body)
            try #require(created.status == .created, "\(created.json)")
            let html = try #require(try await message(app, "email_verification").html)
            #expect(html.contains("Hello Ad&quot;\u{301}a,"), "\(html)")
        }
    }

    @Test func anIssuersDirectoryReplacesATemplateAndAddsALanguage() async throws {
        let directory = try Self.directory([
            "en/email_verification/subject.mustache": "Welcome to {{issuer}}: confirm your address\n",
            "fr/email_verification/subject.mustache": "Confirmez votre adresse pour {{issuer}}\n",
            "fr/email_verification/text.mustache": "{{#firstName}}Bonjour {{firstName}},{{/firstName}}\n\nOuvrez ce lien : {{link}}\n",
        ])
        defer { try? FileManager.default.removeItem(at: directory) }
        try await withServer(configure: { $0.courier.templates = directory.path }) { app, client in
            #expect(try await client.call(.post, "/v1/enrollment/users", body: registrationBody()).status == .created)
            let english = try await message(app, "email_verification")
            #expect(english.subject == "Welcome to Latchkey Wallet: confirm your address")
            #expect(english.body.hasPrefix("Hello Ada,"), "the files it does not replace stay built in")

            let french = registrationBody(email: "zoe@example.com") { $0["firstName"] = "Zoé" }
            #expect(try await client.call(.post, "/v1/enrollment/users", headers: headers("fr-FR, en;q=0.5", device: "device-2"),
                                          body: french).status == .created)
            let added = try await message(app, "email_verification", to: "zoe@example.com")
            #expect(added.language == "fr")
            #expect(added.subject == "Confirmez votre adresse pour Latchkey Wallet")
            #expect(added.body.hasPrefix("Bonjour Zoé,\n\nOuvrez ce lien : http"))
            #expect(added.html == nil, "a language without an HTML body sends text only")
        }
    }

    @Test func aTemplateThatUsesAnUnknownNameOrDoesNotParseStopsTheStart() async throws {
        for (file, content, words) in [
            ("de/email_verification/text.mustache", "Hallo {{vorname}}: {{link}}", ["{{vorname}}", "provides issuer, firstName, link, hours"]),
            ("en/security_notice/html.mustache", "{{#password}}<p>{{lnk}}</p>{{/password}}", ["{{lnk}}"]),
            ("en/otp/text.mustache", "{{#code}}{{code}}", ["does not parse"]),
            ("en/otp/subject.mustache", "Code", ["is no part of otp"]),
            ("en/welcome/text.mustache", "Hi", ["is no message Latchkey sends"]),
            ("en/email_verification/html.mustache", "{{% CONTENT_TYPE: TEXT}}<p>{{link}}</p>", ["sets a content type"]),
        ] {
            let directory = try Self.directory([file: content])
            defer { try? FileManager.default.removeItem(at: directory) }
            let error = try #require(throws: ConfigurationError.self) {
                try MessageCatalog.load(overrides: directory.path)
            }
            #expect(error.key == "courier.templates")
            #expect(error.message.contains(directory.appendingPathComponent(file).path)
                    || error.message.contains(directory.appendingPathComponent(file).deletingLastPathComponent().path), "\(error)")
            for word in words { #expect(error.message.contains(word), "\(error)") }

            var configuration = try TestEnvironment.configuration(database: try await TestEnvironment.freshDatabase("sqlite"))
            configuration.courier.templates = directory.path
            await #expect(throws: ConfigurationError.self) {
                _ = try await buildApplication(configuration, options: BuildOptions(logger: TestEnvironment.logger,
                                                                                    pepper: TestEnvironment.pepper, runCourier: false))
            }
        }
    }

    @Test func configCheckRendersEveryTemplateAndRefusesABadOne() async throws {
        let good = try Self.directory(["fr/otp/text.mustache": "{{code}} est votre code {{issuer}}."])
        let bad = try Self.directory(["de/password_reset/html.mustache": "<p>{{link}} {{expires}}</p>"])
        defer { for directory in [good, bad] { try? FileManager.default.removeItem(at: directory) } }
        let checked = try await Self.configCheck(templates: good.path)
        #expect(checked.status == 0, "\(checked.output)")
        #expect(checked.output.contains("templates de: 10 of 10 messages rendered with sample values"), "\(checked.output)")
        #expect(checked.output.contains("templates en: 10 of 10 messages rendered with sample values"))
        #expect(checked.output.contains("templates fr: 1 of 10 messages rendered with sample values; without email_verification"), "\(checked.output)")
        let refused = try await Self.configCheck(templates: bad.path)
        #expect(refused.status != 0)
        #expect(refused.output.contains(bad.appendingPathComponent("de/password_reset/html.mustache").path)
                && refused.output.contains("{{expires}}"), "\(refused.output)")
    }

    /// operations.md's table of the messages names each message with every value and flag it provides.
    @Test func theDocumentedVariablesAreTheTemplatesOwn() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        let text = try String(contentsOf: root.appendingPathComponent("docs/operations.md"), encoding: .utf8)
        let section = try #require(text.components(separatedBy: "\n## Templates\n").last)
        let rows = section.split(separator: "\n").filter { $0.hasPrefix("| `") }
        for template in MessageTemplate.all {
            let row = try #require(rows.first { $0.split(separator: "|").first?.contains("`\(template.name)`") == true },
                                   "operations.md documents \(template.name)")
            let columns = row.split(separator: "|").dropFirst(2).joined(separator: "|")
            let documented = Set(columns.matches(of: /`([A-Za-z]+)`/).map { String($0.1) })
            #expect(documented == Set(template.variables), "\(template.name): \(documented.sorted()) in the docs")
        }
    }

    /// A temporary directory holding `files` (relative path → content).
    static func directory(_ files: [String: String]) throws -> URL {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("templates-\(UUID().uuidString)")
        for (path, content) in files {
            let url = root.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try content.write(to: url, atomically: true, encoding: .utf8)
        }
        return root
    }

    /// `latchkey config check` of a configuration whose `courier.templates` is `templates`.
    static func configCheck(templates: String) async throws -> (status: Int32, output: String) {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("check-\(UUID().uuidString).yaml")
        try "issuer: { name: Example }\ncourier: { templates: \"\(templates)\" }\n".write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let process = try SpawnedProcess(try LatchkeyProcess.binary().path, ["config", "check", file.path], mergeErrors: true)
        // Read and wait off the concurrency pool: blocking one of its few threads for the whole
        // run of the process would hold back every server and client of the suites running beside.
        let finished = await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: process.finish()) }
        }
        return (finished.status, finished.output)
    }
}
