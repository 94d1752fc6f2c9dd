import Foundation
import HTTPTypes
import LatchkeyDomain
import LatchkeyServer
import LatchkeyTestSupport
import Testing

/// An import with `update` that replaces a wallet's credentials tells its owner, as every other
/// credential change does, and records which credential per user; on both engines, through the
/// importer the command line runs and through the admin API.
@Suite struct ImportNoticeTests {
    /// An import line with `AuthFixture`'s secrets, each hashed in the format given.
    static func line(_ email: String, password: String = "django-pbkdf2", passcode: String = "django-pbkdf2",
                     answers: String = "django-pbkdf2", firstName: String = "Ada") -> String {
        let given = ImportTests.questions.sorted { $0.key < $1.key }.map { ["question": $0.key, "hash": ImportTests.vectors[answers]![$0.value]!] }
        return ImportTests.json(["email": email, "firstName": firstName, "lastName": "Lovelace", "emailVerified": true,
                                 "password": ["hash": ImportTests.vectors[password]![AuthFixture.password]!],
                                 "passcode": ["hash": ImportTests.vectors[passcode]![AuthFixture.pin]!], "mfaAnswers": given])
    }

    static func notices(_ app: LatchkeyApplication, to email: String) async throws -> [OutboxMessage] {
        try await app.store.outboxMessages().filter { $0.recipient == email && $0.template == "security_notice" }
    }

    /// The credentials the user's events say an import replaced (`password.changed`, …, `by: import`).
    static func replaced(_ app: LatchkeyApplication, _ email: String) async throws -> [AuditEventType] {
        let user = try #require(try await app.store.user(issuer: "default", emailNormalized: email))
        return try await app.store.auditEvents(userID: user.id, limit: 100)
            .filter { $0.details["by"] == "import" && $0.actor == .operator && $0.userID == user.id }.map(\.type).sorted { $0.rawValue < $1.rawValue }
    }

    /// Attack: an operator (or whoever holds an admin key) replaces a wallet's password or answers
    /// by import; its owner is told, as after any other credential change.
    @Test(arguments: TestEnvironment.engines)
    func anUpdateThatReplacesACredentialTellsTheOwner(engine: String) async throws {
        try await withServer(engine: engine, configure: AdminAPITests.configure) { app, client in
            let created = try await ImportTests.importing(app, [Self.line("grace@example.com"), Self.line("alan@example.com")])
            #expect(created.report.created == 2)

            // The command line's importer: a new name only changes no credential and tells no one.
            let renamed = try await ImportTests.importing(app, [Self.line("grace@example.com", firstName: "Grace")], update: true)
            #expect(renamed.report.updated == 1)
            #expect(try await Self.notices(app, to: "grace@example.com").isEmpty)
            #expect(try await Self.replaced(app, "grace@example.com").isEmpty)
            // A new password hash: the owner gets the security notice, its events say the password.
            let repassworded = try await ImportTests.importing(app, [Self.line("grace@example.com", password: "django-scrypt", firstName: "Grace")],
                                                               update: true)
            #expect(repassworded.report.updated == 1)
            let notice = try #require(try await Self.notices(app, to: "grace@example.com").first)
            #expect(try await Self.notices(app, to: "grace@example.com").count == 1)
            let body = try #require(app.hasher.outboxCipher.open(notice)?.body)
            #expect(body.contains("password") && body.contains("import"), "it names the password and says how: \(body)")
            #expect(try await Self.replaced(app, "grace@example.com") == [.passwordChanged])

            // The admin API's import: new answers and a new PIN are two notices and two events.
            var headers = AdminAPITests.admin(try await AdminAPITests.key(app, .admin).1)
            headers[.contentType] = "application/x-ndjson"
            let changed = Self.line("alan@example.com", passcode: "django-scrypt", answers: "django-scrypt")
            let answer = try await client.call(.post, "/admin/v1/users/import?update=true", headers: headers, raw: changed)
            #expect(answer.status == .ok && answer.importReport?.updated == 1, "\(answer.json)")
            #expect(try await Self.notices(app, to: "alan@example.com").count == 2)
            #expect(try await Self.replaced(app, "alan@example.com") == [.mfaAnswersChanged, .passcodeChanged])
            // The same line again replaces nothing: no further notice.
            let again = try await client.call(.post, "/admin/v1/users/import?update=true", headers: headers, raw: changed)
            #expect(again.status == .ok && again.importReport?.updated == 1)
            #expect(try await Self.notices(app, to: "alan@example.com").count == 2)
            #expect(try await Self.replaced(app, "alan@example.com").count == 2)
        }
    }
}
