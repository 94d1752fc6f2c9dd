import Foundation
import LatchkeyAPI
import LatchkeyCore
import HummingbirdTesting
import LatchkeyDomain
import LatchkeySQL
import LatchkeyServer
import LatchkeyTestSupport
import Testing

/// `latchkey users import`: users another system hashed log in as they did there, their hashes
/// replaced by Latchkey's at the first successful check; bad lines are reported and not written.
@Suite struct ImportTests {
    /// Made by Django 5.2 (`PBKDF2PasswordHasher`, `PBKDF2SHA1PasswordHasher`, `ScryptPasswordHasher`)
    /// and passlib 1.7 (`pbkdf2_sha256`, `pbkdf2_sha512`, `scrypt`) at low cost, and one PHC string
    /// with `i=` (hashlib): the password, PIN and normalized MFA answers of `AuthFixture`.
    static let vectors: [String: [String: String]] = [
        "django-pbkdf2": [
            "correct-horse-42": "pbkdf2_sha256$1000$seasalt123abc$TR7Lw2b27Zh/3XCfAfqkDR7b7HOc5AQmdiwZfB1pwfQ=",
            "314159": "pbkdf2_sha256$1000$seasalt123abc$EIEBEzJfCVUwi1kPfPn6TfYgw90I+6Z5mpNAQIfcy34=",
            "rex": "pbkdf2_sha256$1000$seasalt123abc$rBpXQfVaDXlOOBtKVOTXpTe9yu8JJKQeNqQJkzRoEcs=",
            "london": "pbkdf2_sha256$1000$seasalt123abc$ltoBIrdAH4gnj+hPc7V1tJi3qlzhRu4YeLYpp34aW/Y=",
            "byron": "pbkdf2_sha256$1000$seasalt123abc$bJYu5cSjo0xVvf/iVhaDGx5p+Y0qakve6S2cSjlSido="],
        "django-pbkdf2-sha1": [
            "correct-horse-42": "pbkdf2_sha1$1000$seasalt123abc$45zmNgEzaaMgy1uPUrhNCB+C2Hs=",
            "314159": "pbkdf2_sha1$1000$seasalt123abc$ZL+x6NbCopgp/wUJRLaL2y+ijT8=",
            "rex": "pbkdf2_sha1$1000$seasalt123abc$btaaasDhwacFWRw/pu6mMc6m4Nw=",
            "london": "pbkdf2_sha1$1000$seasalt123abc$EHXiMrJZu2Gxp+IhocDS6+JKoYc=",
            "byron": "pbkdf2_sha1$1000$seasalt123abc$/26fTVazzLDdsS3L6D+eKrszlVU="],
        "django-scrypt": [
            "correct-horse-42": "scrypt$1024$seasalt123abc$8$2$zehfCJt68NaJ1AJu5HMRS8Brt7vwkvrnkdnnennygTUkL7gOcMGCd4CvfPqxqC0L2eu4rhap4HFpT0Ylh2RadA==",
            "314159": "scrypt$1024$seasalt123abc$8$2$hLTqE14qeCHcaoWIdbOocqXlJgC2+9YScnItKx+scn+RMQUmt3uFfp37dTnlK83YfQyvAeLzuNCQXb669JgpCw==",
            "rex": "scrypt$1024$seasalt123abc$8$2$8nQnXu3YMlJw/x4OuZUKyWooKGHMOELtMo65xtjOyql0ZnKhX8pa8snnCgUX2jhX35hvOQvkD7a8Ie57UfO9Gg==",
            "london": "scrypt$1024$seasalt123abc$8$2$pXIcAt0/HuSimEAcC8RLVdgNy3X2R2qSMsiAUxUKphCfoLDsnxw92y+dOlO18eSBCFXFBgcB2lNVylLsf5lgeA==",
            "byron": "scrypt$1024$seasalt123abc$8$2$GjEE3MzNB/Mb06s/g32BvQ90Zqf93gndhNgMH1AIX0bWGFSsJDb9zbWeMJ0oYAPbbwfEac48XuQiS2yI63zuqQ=="],
        "passlib-pbkdf2-sha256": [
            "correct-horse-42": "$pbkdf2-sha256$1000$AUDofQ/hHCPE2Juz9t6bsw$ZfAGdEl1UvR21rqtyH1ru5ezVcJwS9/JxoBGztdqVa4",
            "314159": "$pbkdf2-sha256$1000$uTeGcG5trRVijNHa.z.H0A$XytAnWMKO0crNmUJMMtrkGL5ynUYpzHHo7.JcIxssWg",
            "rex": "$pbkdf2-sha256$1000$B.Cc8/6/lzKGEEIoJQRAKA$pUPaXfgsMRlVjuNOXTuYneWMWgPgE/RIvwZfk/hALCA",
            "london": "$pbkdf2-sha256$1000$KYWQEuJc610rBYCwdq41xg$e20SLQTj8YelLIVng8fq8VzxcsCyD0YZHseivYQt4nE",
            "byron": "$pbkdf2-sha256$1000$BkAIgRCCkPLemxMihBBCCA$w2scqTR2ue7UBkrhl/2Nb3uK.FL2BRly/VRMz0tbvks"],
        "passlib-pbkdf2-sha512": [
            "correct-horse-42": "$pbkdf2-sha512$1000$odRa610rZYxRSum9N8bYGw$9dRuNlJtootI3KmD/7KR20rqzdlYf4J7mW7XCwu6iy7CfHO0jOaHL8kdG6T8uHgStQXgrVspIi2WUBAwEXPmjQ",
            "314159": "$pbkdf2-sha512$1000$X4uR0vq/V2qt9T5HiDHGeA$/gJ9qvzq6vYhFEDK0g0zDh9E7rwUUjKYgb54r7IRxerj7pgHRzdDsGRnq5QkP4dG.4zS5jSjOeAJOwK65fmaUA",
            "rex": "$pbkdf2-sha512$1000$LkWolZJy7r0XYixlLGUsBQ$TOK8g6o3Pim6axPMSu3WLRpRRrdoz4u6EPeH4E8lp2pKFif3mntaoxv1gGQefozFq4roqFg.gj1jpcaUr2WtyQ",
            "london": "$pbkdf2-sha512$1000$cE6pdc65t7a2NuZ8733POQ$YlnGuWPWdkAC2U68/QZM6zQj59rfrObu4pnH60irT4385Z5rtoBUxPWxoWcFV1XWtJXAtzYDo.tuEyoPl.BVvw",
            "byron": "$pbkdf2-sha512$1000$FmIMYYxxrpUy5pyTslZqDQ$5HfA4vEFINS8NNTpVk.pKYQTBFjgCHOxgRBoFf1m1K325WFR//wnduT0N9yQDPgJzlj9AdI6IYrTDdF5A9emfg"],
        "passlib-scrypt": [
            "correct-horse-42": "$scrypt$ln=10,r=8,p=1$+P8/57xXqjWG8P6/9x6jlA$N3i/BwbdyhxFF4DXdQlqgeZI6dyIVXkhCCQ9rYnSFLg",
            "314159": "$scrypt$ln=10,r=8,p=1$ay2llNL639sbY+z9n5MyBg$u/t69tRKYX8YMtmM8yHYaW5volG8YCnuiA+rfxzyEYI",
            "rex": "$scrypt$ln=10,r=8,p=1$4Lw3JiSkNOa8NyZE6P1/Tw$BWFoOZNJTQzeQ1Af5UV4olxvZBockPCa/uCzDPNdYwY",
            "london": "$scrypt$ln=10,r=8,p=1$37tXqhWilNJ6by0lxDhH6A$8mamwTptU6vwAAml0GV/29d6acYohA/EU8QiWg9zSfo",
            "byron": "$scrypt$ln=10,r=8,p=1$N2YsRShlDMGY8763di7lXA$eiH4u9acqxRe3Y1GyfTnjDXazHgDsQWCCm4Oq8zsA54"],
        "phc-pbkdf2-i": [
            "correct-horse-42": "$pbkdf2-sha256$i=1000$MDEyMzQ1Njc4OWFiY2RlZg$NkFK+wg+chBrchtuAgr9pAEKSee7KoKo9zWu0y0KVtg",
            "314159": "$pbkdf2-sha256$i=1000$MDEyMzQ1Njc4OWFiY2RlZg$CkTaSWzecnxFSwy9smI+RibJiFtffm9W+HeEJR0dedU",
            "rex": "$pbkdf2-sha256$i=1000$MDEyMzQ1Njc4OWFiY2RlZg$NjVrpy/E0aPJPZpr5Sdola2V8V7umigyYGLEuye4W6g",
            "london": "$pbkdf2-sha256$i=1000$MDEyMzQ1Njc4OWFiY2RlZg$/kf4kKylOJOF8sAEduJZTri5WUcrT7xDJutsx9bq2tM",
            "byron": "$pbkdf2-sha256$i=1000$MDEyMzQ1Njc4OWFiY2RlZg$vVwZfr+AYDJ1L5KyDebL8VJ+WWNZrWAHRIRFETotl00"],
    ]

    static let questions = ["What was the name of your first pet?": "rex", "In what city were you born?": "london",
                            "What is your mother's maiden name?": "byron"]

    /// One import line whose secrets are the `format` vectors.
    static func line(_ email: String, format: String, verified: Bool = true) -> String {
        let hashes = vectors[format]!
        let answers = questions.sorted { $0.key < $1.key }.map { ["question": $0.key, "hash": hashes[$0.value]!] }
        return json(["email": email, "firstName": "Ada", "lastName": "Lovelace", "emailVerified": verified,
                     "password": ["hash": hashes[AuthFixture.password]!], "passcode": ["hash": hashes[AuthFixture.pin]!],
                     "mfaAnswers": answers])
    }

    static func json(_ object: [String: Any]) -> String {
        String(decoding: try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
    }

    /// Runs an import of `lines` into the server's database; answers the report and the failures.
    static func importing(_ app: LatchkeyApplication, _ lines: [String], update: Bool = false) async throws
        -> (report: UserImporter.Report, failures: [String]) {
        var failures: [String] = []
        let hasher = app.hasher
        let report = try await UserImporter(store: app.store, issuer: app.configuration.issuer, hasher: { hasher })
            .run(lines: lines.map { Substring($0) }, update: update, failure: { failures.append("\($0)") }, progress: { _ in })
        return (report, failures)
    }

    @Test(arguments: TestEnvironment.engines)
    func foreignHashesLogInAndAreReplacedAtTheFirstCheck(engine: String) async throws {
        try await withServer(engine: engine) { app, client in
            let formats = Self.vectors.keys.sorted()
            let imported = try await Self.importing(app, formats.map { Self.line("\($0)@example.com", format: $0) })
            #expect(imported.failures == [])
            #expect(imported.report.created == formats.count)
            for format in formats {
                let email = "\(format)@example.com", device = "phone-\(format)"
                #expect(try await AuthFixture.passwordLogin(client, email: email, password: "wrong-password-1").errorCode == 401, "\(format)")
                // A new device: the password, then an MFA answer, both checked against the imported hashes.
                let prompt = try await AuthFixture.passwordLogin(client, email: email, device: device)
                let token = try #require(prompt.login?.mfaToken, "\(format): \(prompt.json)")
                let question = try #require(token.mfaSecretQuestion)
                let linked = try await client.call(.post, "/v1/auth/mfa", headers: appHeaders(device: device), body: [
                    "challengeToken": token.challengeToken,
                    "mfaSecretAnswer": try #require(AuthFixture.answers[question])])
                #expect(linked.login?.sessionToken != nil, "\(format): \(linked.json)")
                let pin = try await client.call(.post, "/v1/auth/login/pin", headers: appHeaders(device: device),
                                           body: ["pin": AuthFixture.pin])
                #expect(pin.login?.sessionToken != nil, "\(format): \(pin.json)")

                let user = try #require(try await app.store.user(issuer: app.configuration.issuer.id, emailNormalized: email))
                let answered = try #require(try await app.store.mfaAnswers(userID: user.id).first { $0.question == question })
                for hash in [user.passwordHash, user.passcodeHash, answered.answerHash] {
                    #expect(hash?.hasPrefix("scrypt$\(app.configuration.hashing.logN)$") == true && !app.hasher.needsUpgrade(hash ?? ""),
                            "\(format): replaced by Latchkey's own hash")
                }
                #expect(try await AuthFixture.passwordLogin(client, email: email, device: device).login?.sessionToken != nil)
            }
        }
    }

    /// Each bad line is reported with its number and the field, and nothing of it is written.
    @Test(arguments: TestEnvironment.engines)
    func badLinesAreReportedAndNotWritten(engine: String) async throws {
        try await withServer(engine: engine) { app, client in
            let good = Self.line("good@example.com", format: "django-pbkdf2")
            func variant(_ email: String, _ change: (inout [String: Any]) -> Void) -> String {
                var object = try! JSONSerialization.jsonObject(with: Data(Self.line(email, format: "django-pbkdf2").utf8)) as! [String: Any]
                change(&object)
                return Self.json(object)
            }
            let lines = [
                good,
                variant("not-an-email") { _ in },
                variant("md5@example.com") { $0["password"] = ["hash": "md5$salt$0123456789abcdef0123456789abcdef"] },
                variant("good@example.com") { _ in },
                variant("long@example.com") { $0["firstName"] = String(repeating: "A", count: 500) },
                variant("typo@example.com") { $0["passwrod"] = $0["password"] },
                "{\"email\": ",
                variant("both@example.com") { $0["password"] = ["hash": Self.vectors["django-pbkdf2"]!["correct-horse-42"]!, "value": "x"] },
                variant("common@example.com") { $0["password"] = ["value": "password"] },
                variant("question@example.com") { $0["mfaAnswers"] = [["question": "Favourite colour?", "value": "blue"]] },
                "",
                variant("later@example.com") { _ in },
                variant("costly@example.com") {
                    $0["password"] = ["hash": "pbkdf2_sha256$1000000000$seasalt123abc$TR7Lw2b27Zh/3XCfAfqkDR7b7HOc5AQmdiwZfB1pwfQ="]
                },
            ]
            let imported = try await Self.importing(app, lines)
            #expect(imported.failures.map { $0.components(separatedBy: ": ").prefix(2).joined(separator: ": ") } == [
                "line 2: email", "line 3: password.hash", "line 4: email", "line 5: firstName", "line 6: passwrod",
                "line 7: line", "line 8: password", "line 9: password.value", "line 10: mfaAnswers[0].question",
                "line 13: password.hash",
            ])
            #expect(imported.failures[2].contains("Also on line 1"))
            #expect(imported.report == UserImporter.Report(lines: 13, created: 2, updated: 0, skipped: 0, failed: 10))
            #expect(!imported.failures.joined().contains("seasalt"), "no hash or value in a message")
            let stored = try await app.store.users(issuer: app.configuration.issuer.id, limit: 100, offset: 0).map(\.email).sorted()
            #expect(stored == ["good@example.com", "later@example.com"], "no bad line is half-written")
            #expect(try await AuthFixture.passwordLogin(client, email: "later@example.com").status == .ok)
        }
    }

    /// Running again skips the users that exist; `--update` overwrites them and signs them out.
    @Test(arguments: TestEnvironment.engines)
    func aSecondRunSkipsOrUpdates(engine: String) async throws {
        try await withServer(engine: engine) { app, client in
            let session = try await AuthFixture.enrolledSession(app, client)
            let ada = Self.line("ada@example.com", format: "passlib-scrypt")
            let first = try await Self.importing(app, [ada, Self.line("bob@example.com", format: "django-scrypt")])
            #expect(first.report.created == 1 && first.report.skipped == 1, "ada registered through the API")
            let again = try await Self.importing(app, [ada, Self.line("bob@example.com", format: "django-scrypt")])
            #expect(again.report == UserImporter.Report(lines: 2, created: 0, updated: 0, skipped: 2, failed: 0))
            #expect(try await client.call(.get, "/v1/profile", headers: appHeaders(session: session)).status == .ok,
                    "a skipped user is untouched")

            let renamed = ada.replacingOccurrences(of: "\"Ada\"", with: "\"Augusta\"")
            let updated = try await Self.importing(app, [renamed], update: true)
            #expect(updated.report == UserImporter.Report(lines: 1, created: 0, updated: 1, skipped: 0, failed: 0))
            #expect(try await client.call(.get, "/v1/profile", headers: appHeaders(session: session)).status == .unauthorized,
                    "its sessions ended")
            let login = try await AuthFixture.passwordLogin(client)
            #expect(login.login?.sessionToken != nil, "the imported password, from the linked device")
            let profile = try await client.call(.get, "/v1/profile", headers: appHeaders(session: try #require(login.login?.sessionToken)))
            #expect(profile.decoded(Customer.self)?.firstName == "Augusta")
        }
    }

    /// A secret given as a value is hashed as registration hashes it; it is never stored as given.
    @Test(arguments: TestEnvironment.engines)
    func valuesAreHashedWithThePepper(engine: String) async throws {
        try await withServer(engine: engine) { app, client in
            let line = Self.json(["email": "val@example.com", "firstName": "Val", "lastName": "Ue", "emailVerified": true,
                                  "password": ["value": "Tr0ub4dor&3-horse"], "passcode": ["value": "271828"],
                                  "mfaAnswers": [["question": "In what city were you born?", "value": "Paris"]]])
            #expect(try await Self.importing(app, [line]).report.created == 1)
            let user = try #require(try await app.store.user(issuer: app.configuration.issuer.id, emailNormalized: "val@example.com"))
            let answers = try await app.store.mfaAnswers(userID: user.id)
            for hash in [user.passwordHash, user.passcodeHash] + answers.map(\.answerHash) {
                #expect(hash.map { !app.hasher.needsUpgrade($0) } == true)
            }
            #expect(try await app.hasher.verify("paris", against: answers[0].answerHash), "normalized as registration does")
            #expect(try await AuthFixture.passwordLogin(client, email: "val@example.com", password: "Tr0ub4dor&3-horse")
                .login?.mfaToken != nil)
        }
    }

    /// A Django user has no MFA answers: its first device is linked by its password (nothing to
    /// prompt with), as registration links the first device by its nonce; a second device, with
    /// still no answers to ask, is refused.
    @Test(arguments: TestEnvironment.engines)
    func aUserWithoutAnswersLinksItsFirstDeviceByPassword(engine: String) async throws {
        try await withServer(engine: engine) { app, client in
            let line = Self.json(["email": "dj@example.com", "firstName": "Dj", "lastName": "Ango", "emailVerified": true,
                                  "password": ["hash": Self.vectors["django-pbkdf2"]![AuthFixture.password]!]])
            #expect(try await Self.importing(app, [line]).report.created == 1)
            #expect(try await AuthFixture.passwordLogin(client, email: "dj@example.com", password: "wrong-password-1").errorCode == 401)
            let first = try await AuthFixture.passwordLogin(client, email: "dj@example.com")
            #expect(first.login?.sessionToken != nil, "\(first.json)")
            #expect(try await AuthFixture.passwordLogin(client, email: "dj@example.com", device: "device-2").errorCode == 401,
                    "a second device has no question to answer")
            #expect(try await AuthFixture.passwordLogin(client, email: "dj@example.com").login?.sessionToken != nil)
        }
    }
}
