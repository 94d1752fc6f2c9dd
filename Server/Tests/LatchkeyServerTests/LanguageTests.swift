import Foundation
import HTTPTypes
import HummingbirdTesting
import LatchkeyCore
import LatchkeyDomain
import LatchkeyServer
import Testing

/// The wallet API's messages and the portal's pages in the customer's language: German built in,
/// English for a language no catalog holds, an issuer's catalogs over the built-in ones, and
/// `config check` saying what a language lacks.
@Suite struct LanguageTests {
    static let german = "de-DE,de;q=0.9,en;q=0.5"

    /// `headers` with `Accept-Language`.
    static func speaking(_ language: String?, _ headers: HTTPFields = appHeaders()) -> HTTPFields {
        var headers = headers
        if let language { headers[.acceptLanguage] = language }
        return headers
    }

    /// Sends the same request in English and in `language`: both answers.
    static func both(_ client: any TestClientProtocol, _ method: HTTPRequest.Method, _ path: String, language: String = german,
                     headers: HTTPFields = appHeaders(), body: Any? = nil) async throws -> (english: JSONAnswer, other: JSONAnswer) {
        (try await client.call(method, path, headers: headers, body: body),
         try await client.call(method, path, headers: speaking(language, headers), body: body))
    }

    @Test func germanMessagesKeepTheIdCodeAndField() async throws {
        try await withServer { _, client in
            let badEmail = try await Self.both(client, .post, "/v1/enrollment/users",
                                               body: registrationBody { $0["email"] = "not-an-address" })
            let shortPassword = try await Self.both(client, .post, "/v1/enrollment/users", body: registrationBody {
                $0["password"] = "short"
                $0["confirmPassword"] = "short"
            })
            let noSession = try await Self.both(client, .get, "/v1/profile")
            _ = try await client.call(.post, "/v1/enrollment/users", body: registrationBody())
            let wrongLogin = try await Self.both(client, .post, "/v1/auth/login/password",
                                                 body: ["username": "ada@example.com", "password": "not-the-password-1"])
            let expected = [
                (badEmail, "The email address is not valid.", "Die E-Mail-Adresse ist nicht gültig."),
                (shortPassword, "The password must have at least 8 characters.", "Das Passwort muss mindestens 8 Zeichen haben."),
                (noSession, "The user is not logged in.", "Der Benutzer ist nicht angemeldet."),
                (wrongLogin, "The login credentials are not correct.", "Die Anmeldedaten sind nicht richtig."),
            ]
            for ((english, german), inEnglish, inGerman) in expected {
                let (en, de) = (try #require(english.failure), try #require(german.failure))
                #expect(en.message == inEnglish)
                #expect(de.message == inGerman)
                #expect(de.id == en.id && de.code == en.code && de.field == en.field && german.status == english.status,
                        "only the message changes: \(en) \(de)")
                #expect(german.headers[.contentLanguage] == "de")
                #expect(english.headers[.contentLanguage] == "en")
            }
            #expect(badEmail.other.errorField?.hasSuffix("email") == true)

            // Kratos's envelope: its reason in German, its id and status as in English.
            let flow = UUID().uuidString.lowercased()
            let english = try await SignupFixture.finish(client, flow: flow)
            let german = try await SignupFixture.finish(client, flow: flow, headers: Self.speaking(Self.german, SignupFixture.json))
            let (en, de) = (try #require(english.failure), try #require(german.failure))
            #expect(en.reason == "The flow does not exist. Start a new one.")
            #expect(de.reason == "Der Ablauf existiert nicht. Beginnen Sie einen neuen.")
            #expect(de.id == en.id && de.code == en.code && de.message == en.message, "Kratos's own sentence stays")
        }
    }

    /// The one success answer that carries a sentence, the phone verification's, is German too.
    @Test func aGermanPhoneIsToldItsNumberIsVerifiedInGerman() async throws {
        try await withServer(configure: SignupFixture.configure) { app, client in
            let flow = try await SignupFixture.newFlow(client)
            #expect(try await SignupFixture.sendCode(client, flow: flow).status == .created)
            let otp = try await SignupFixture.code(app)
            let verified = try await client.call(.patch, "/identity/verification/flow/phone",
                                                 headers: Self.speaking(Self.german, SignupFixture.json),
                                                 body: ["phoneType": "PRIMARY", "flowId": flow, "otp": otp, "flowType": "REGISTRATION"])
            #expect(verified.status == .ok)
            #expect(verified.json as? NSDictionary == ["message": "Telefonnummer erfolgreich bestätigt"] as NSDictionary)
        }
    }

    @Test func aLanguageNoCatalogHoldsGetsEnglish() async throws {
        try await withServer { _, client in
            let answer = try await client.call(.get, "/v1/profile", headers: Self.speaking("xx-YY, tlh;q=0.8"))
            #expect(answer.failure?.message == "The user is not logged in.")
            #expect(answer.headers[.contentLanguage] == "en")
            let zero = try await client.call(.get, "/v1/profile", headers: Self.speaking("de;q=0, en"))
            #expect(zero.failure?.message == "The user is not logged in.", "a weight of 0 excludes German")
        }
    }

    @Test func theOperatorsAPIStaysEnglish() async throws {
        try await withServer(configure: AdminAPITests.configure) { _, client in
            let answer = try await client.call(.get, "/admin/v1/users", headers: Self.speaking(Self.german, [:]))
            #expect(answer.status == .unauthorized)
            #expect(answer.failure?.message == "The operator key is missing, unknown, revoked or expired.")
            #expect(answer.headers[.contentLanguage] == nil)
        }
    }

    @Test func aGermanBrowserGetsTheGermanResetPortal() async throws {
        try await withServer { app, client in
            _ = try await AuthFixture.enrolledSession(app, client)
            let path = try await ResetFixture.requestLink(app, client)
            let browser = PortalBrowser(client)
            browser.acceptLanguage = Self.german
            let question = try await browser.get(path)
            #expect(question.html.contains("<html lang=\"de\">"))
            #expect(question.headers[.contentLanguage] == "de")
            #expect(question.text(id: "title") == "Passwort zurücksetzen")
            #expect(question.html.contains("Weiter"))
            let wrong = try await browser.post("/reset/answer", ["token": question.hidden("token")!, "csrf": question.hidden("csrf")!,
                                                                 "answer": "Not it"])
            #expect(wrong.text(id: "error")?.hasPrefix("Diese Antwort ist nicht richtig.") == true)
            let form = try await ResetFixture.grantForm(browser, path)
            #expect(form.text(id: "title") == "Neues Passwort wählen")
            #expect(form.html.contains(">Neues Passwort</label>") && form.html.contains(">Neues Passwort wiederholen</label>"))
            #expect(form.html.contains("<li>8 bis 64 Zeichen</li>"), "the issuer's rules, in German")
            let short = try await browser.post("/reset/credential", ["grant": form.hidden("grant")!, "csrf": form.hidden("csrf")!,
                                                                     "new": "short", "confirm": "short"])
            #expect(short.text(id: "error") == "Das Passwort muss mindestens 8 Zeichen haben.")

            browser.acceptLanguage = "en-GB"
            let english = try await browser.get(path)
            #expect(english.html.contains("<html lang=\"en\">") && english.text(id: "title") == "This link does not work",
                    "the answered link is used")
        }
    }

    @Test func anIssuersDirectoryChangesAKeyAndAddsALanguage() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("languages-\(UUID().uuidString)")
        try Self.write([
            "de/api.yaml": "\"The login credentials are not correct.\": \"Benutzername oder Passwort stimmen nicht.\"\n",
            "fr/api.yaml": "\"The user is not logged in.\": \"L'utilisateur n'est pas connecté.\"\n",
            "fr/portal.yaml": "link.invalid.title: \"Ce lien ne fonctionne pas\"\n",
        ], under: directory)
        defer { try? FileManager.default.removeItem(at: directory) }
        try await withServer(configure: { $0.languages.directory = directory.path }) { _, client in
            _ = try await client.call(.post, "/v1/enrollment/users", body: registrationBody())
            let wrong = try await client.call(.post, "/v1/auth/login/password", headers: Self.speaking("de"),
                                              body: ["username": "ada@example.com", "password": "not-the-password-1"])
            #expect(wrong.failure?.message == "Benutzername oder Passwort stimmen nicht.", "the issuer's text replaces the built-in one")
            let badEmail = try await client.call(.post, "/v1/enrollment/users", headers: Self.speaking("de"),
                                                 body: registrationBody { $0["email"] = "nope" })
            #expect(badEmail.failure?.message == "Die E-Mail-Adresse ist nicht gültig.", "the other built-in texts stay")

            let french = try await client.call(.get, "/v1/profile", headers: Self.speaking("fr-CH, de;q=0.5"))
            #expect(french.failure?.message == "L'utilisateur n'est pas connecté.")
            #expect(french.headers[.contentLanguage] == "fr")
            let missing = try await client.call(.post, "/v1/enrollment/users", headers: Self.speaking("fr"),
                                                body: registrationBody { $0["email"] = "nope" })
            #expect(missing.failure?.message == "The email address is not valid.", "a key French lacks is said in English")

            let browser = PortalBrowser(client)
            browser.acceptLanguage = "fr"
            let page = try await browser.get("/reset?token=unknown")
            #expect(page.html.contains("<html lang=\"fr\">") && page.text(id: "title") == "Ce lien ne fonctionne pas")
            #expect(page.text(id: "message") == "This reset link was already used or has expired. Ask the app to send a new one.")
        }
    }

    @Test func theGermanCatalogsHaveExactlyEnglishsKeysAndPlaceholders() throws {
        let catalog = try TextCatalog.load(LanguageSettings())
        #expect(catalog.languages == ["en", "de"])
        for (part, missing, unknown) in catalog.coverage(of: "de") {
            #expect(missing.isEmpty, "de/\(part.rawValue).yaml lacks \(missing)")
            #expect(unknown.isEmpty, "de/\(part.rawValue).yaml has keys English lacks: \(unknown)")
            for (key, english) in catalog.tables["en"]?[part] ?? [:] {
                let german = try #require(catalog.tables["de"]?[part]?[key])
                #expect(Self.placeholders(german) == Self.placeholders(english), "\(key)")
            }
        }
        #expect(catalog.tables["en"]?[.api]?.count ?? 0 > 150, "the English API texts are generated from the code")
    }

    @Test func configCheckReportsWhatALanguageLacks() async throws {
        let cli = try LatchkeyProcess(settings: "languages: { default: de, directory: languages }\n")
        try Self.write(["fr/portal.yaml": "link.invalid.title: \"Ce lien ne fonctionne pas\"\nlink.invalde.text: \"Lien invalide.\"\n"],
                       under: cli.directory.appendingPathComponent("languages"))
        let (status, text, errors) = try await cli.checkConfiguration()
        #expect(status == 0, "missing keys are said in English: \(text) \(errors)")
        #expect(text.contains("languages: de, en, fr (default de)"), "\(text)")
        #expect(text.contains("languages: de: complete"), "\(text)")
        #expect(text.contains("fr/portal.yaml: 60 missing (said in English): ") && text.contains("\"link.invalid.text\""), "\(text)")
        #expect(text.contains("fr/portal.yaml: 1 unknown (not in English, never used): \"link.invalde.text\""), "\(text)")
        #expect(text.contains("fr/api.yaml: "), "\(text)")
    }

    @Test func anUnknownDefaultLanguageIsRefused() throws {
        var settings = LanguageSettings()
        settings.default = "fr"
        #expect(throws: ConfigurationError.self) { try TextCatalog.load(settings) }
    }

    /// Writes `files` (path under `root` → content).
    static func write(_ files: [String: String], under root: URL) throws {
        for (path, content) in files {
            let url = root.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try content.write(to: url, atomically: true, encoding: .utf8)
        }
    }

    static func placeholders(_ text: String) -> [String] {
        text.matches(of: /\{[A-Za-z0-9]+\}/).map { String($0.output) }.sorted()
    }
}
