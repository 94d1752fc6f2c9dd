import Foundation
import LatchkeyAPI
import LatchkeyCore
import HTTPTypes
import HummingbirdTesting
import LatchkeyDomain
import LatchkeySQL
import LatchkeyServer
import LatchkeyTestSupport
import Testing

/// An unverified registration keeps no address from its owner.
@Suite struct RegistrationSquattingTests {
    /// A registration of `email` with the attacker's own password, PIN and answers.
    static func attackersRegistration(_ email: String) -> [String: Any] {
        registrationBody(email: email) { profile in
            profile["password"] = "mallory-owns-it-9"
            profile["confirmPassword"] = "mallory-owns-it-9"
            profile["mfaAnswers"] = ["What was the name of your first pet?": "Fang", "In what city were you born?": "Oslo",
                                     "What is your mother's maiden name?": "Smith"]
        }
    }

    /// Attack: a stranger registers the victim's address first, hoping the owner's own
    /// registration is refused (416), the owner's reset link asks the stranger's question, or the
    /// "verify your email" message in the owner's inbox makes the stranger's registration a wallet.
    /// The stranger's registration reserves nothing: the owner's replaces it, with its link and
    /// nonce, and a reset finds no wallet to send the stranger's question for.
    @Test(arguments: TestEnvironment.engines)
    func anUnverifiedRegistrationKeepsNothingFromItsOwner(engine: String) async throws {
        try await withServer(engine: engine) { app, client in
            let email = "victim@example.com"
            let squatter = try await client.call(.post, "/v1/enrollment/users", headers: appHeaders(device: "mallory-phone"),
                                                 body: Self.attackersRegistration(email))
            #expect(squatter.status == .created)
            let squattersNonce = try #require(squatter.registration?.nonce)
            let squattersLink = try #require(try await Self.verificationLinks(app, to: email).last)

            // The owner's reset finds no wallet: nobody is asked the stranger's question.
            let reset = try await client.call(.post, "/v1/enrollment/password-reset", body: ["email": email])
            #expect(reset.errorCode == 410, "\(reset.json)")

            // The owner registers the address: it is theirs, not 416.
            let owner = try await client.call(.post, "/v1/enrollment/users", headers: appHeaders(device: "owner-phone"),
                                              body: registrationBody(email: "Victim@Example.com"))
            #expect(owner.status == .created, "\(owner.json)")
            let ownersNonce = try #require(owner.registration?.nonce)

            // The stranger's link and nonce died with their registration.
            #expect(try await EmailLink.follow(client, squattersLink).status == .badRequest)
            let squattersLogin = try await client.call(.post, "/v1/auth/login/nonce", headers: appHeaders(device: "mallory-phone"),
                                                       body: ["nonce": squattersNonce])
            #expect(squattersLogin.status == .unauthorized, "\(squattersLogin.json)")

            // The owner's link makes the owner's registration the wallet.
            try await AuthFixture.verifyEmail(app, client, email: "Victim@Example.com")
            let login = try await client.call(.post, "/v1/auth/login/nonce", headers: appHeaders(device: "owner-phone"),
                                              body: ["nonce": ownersNonce])
            #expect(login.status == .ok, "\(login.json)")
            #expect(try await AuthFixture.passwordLogin(client, email: email, password: "mallory-owns-it-9").status == .unauthorized)
            #expect(try await AuthFixture.passwordLogin(client, email: email, device: "owner-phone").status == .ok)

            // A verified wallet holds its address: 416, and nothing of the stranger's is written.
            let late = try await client.call(.post, "/v1/enrollment/users", body: Self.attackersRegistration(email))
            #expect(late.errorCode == 416)
            #expect(late.errorField == "userProfile.email")
            let events = try await app.store.auditEvents(after: nil, since: nil, limit: 1000)
            #expect(events.contains { $0.type == .registrationReplaced })
        }
    }

    /// A stranger who registers the address a wallet is moving to (before its owner opens the
    /// change's link) blocked the change: the link answered "taken". A pending registration
    /// reserves nothing here either: the confirmed change replaces it.
    @Test(arguments: TestEnvironment.engines)
    func aPendingRegistrationDoesNotBlockAnEmailChange(engine: String) async throws {
        try await withServer(engine: engine) { app, client in
            let session = try await AuthFixture.enrolledSession(app, client)
            let change = try await client.call(.patch, "/v1/profile", headers: appHeaders(session: session),
                                               body: ["email": "moving@example.com"])
            #expect(change.status == .ok, "\(change.json)")
            let squatter = try await client.call(.post, "/v1/enrollment/users", headers: appHeaders(device: "mallory-phone"),
                                                 body: Self.attackersRegistration("moving@example.com"))
            #expect(squatter.status == .created)
            let link = try await EmailLink.path(app, "email_change_verification", to: "moving@example.com")
            let page = try await EmailLink.follow(client, link)
            #expect(page.status == .ok, "the change is made: \(page.html)")
            let moved = try #require(try await app.store.user(issuer: "default", emailNormalized: "moving@example.com"))
            #expect(moved.emailVerified && !moved.isPendingRegistration)
            #expect(try await AuthFixture.passwordLogin(client, email: "moving@example.com").status == .ok)
            #expect(try await AuthFixture.passwordLogin(client, email: "moving@example.com", password: "mallory-owns-it-9").status
                    == .unauthorized)
        }
    }

    /// The registration links to `email` in the outbox, as paths.
    static func verificationLinks(_ app: LatchkeyApplication, to email: String) async throws -> [String] {
        try await app.store.outboxMessages().filter { $0.recipient.lowercased() == email.lowercased() && $0.template == "email_verification" }
            .compactMap { app.cipher.open($0)?.data["link"] }
            .map { String($0[$0.range(of: "/verify-email")!.lowerBound...]) }
    }

    /// A 416 answered at once for a held address and after five hashes for a free one told which
    /// addresses have wallets (about 4 ms against 16 ms). Both do the same hashing now.
    @Test(arguments: TestEnvironment.engines)
    func aHeldAddressCostsTheSameHashingAsAFreeOne(engine: String) async throws {
        try await withServer(engine: engine) { app, client in
            _ = try await AuthFixture.enrolledSession(app, client)
            let gate = app.hasher.gate
            let beforeFree = gate.completedHashes
            let free = try await client.call(.post, "/v1/enrollment/users", body: registrationBody(email: "grace@example.com"))
            #expect(free.status == .created)
            let freeWork = gate.completedHashes - beforeFree
            let beforeHeld = gate.completedHashes
            let held = try await client.call(.post, "/v1/enrollment/users", body: registrationBody(email: "ADA@example.com"))
            #expect(held.errorCode == 416)
            #expect(gate.completedHashes - beforeHeld == freeWork, "a held address: \(gate.completedHashes - beforeHeld) hashes, a free one \(freeWork)")
            #expect(freeWork == 5)
        }
    }

    /// Unverified registrations expire after `issuer.registration.unverifiedHours`: their link no
    /// longer verifies (though the link itself would live 24 hours), and the store's hourly purge
    /// deletes them.
    @Test(arguments: TestEnvironment.engines)
    func unverifiedRegistrationsExpire(engine: String) async throws {
        let clock = TestClock(start: Date())
        try await withServer(engine: engine, clock: clock, configure: { $0.issuer.registration.unverifiedHours = 2 }) { app, client in
            _ = try await AuthFixture.register(client, email: "late@example.com")
            let link = try #require(try await Self.verificationLinks(app, to: "late@example.com").last)
            clock.advance(3600)
            _ = try await AuthFixture.register(client, email: "kept@example.com")
            try await AuthFixture.verifyEmail(app, client, email: "kept@example.com")
            clock.advance(5400)
            #expect(try await EmailLink.follow(client, link).status == .badRequest)
            #expect(try await app.store.user(issuer: "default", emailNormalized: "late@example.com")?.emailVerified == false)
            #expect(try await app.store.purgeExpiredRegistrations(now: clock.now) == 1)
            #expect(try await app.store.user(issuer: "default", emailNormalized: "late@example.com") == nil)
            #expect(try await app.store.user(issuer: "default", emailNormalized: "kept@example.com") != nil, "a verified wallet stays")
        }
    }

    /// Twenty parallel registrations of one unverified address leave one registration, whose link
    /// works; with a verified wallet on the address all twenty are 416 and write nothing.
    @Test(arguments: TestEnvironment.engines)
    func parallelRegistrationsLeaveOneHolder(engine: String) async throws {
        try await withServer(engine: engine) { app, client in
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for index in 0..<20 {
                    group.addTask {
                        let email = index.isMultiple(of: 2) ? "race@example.com" : "RACE@example.com"
                        return Int(try await client.call(.post, "/v1/enrollment/users", body: registrationBody(email: email)).status.code)
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(statuses.allSatisfy { $0 == 201 || $0 == 409 }, "\(statuses)")
            #expect(statuses.contains(201))
            #expect(try await app.store.user(issuer: "default", emailNormalized: "race@example.com")?.isPendingRegistration == true)
            // One more replaces whichever won, and its link (to an address spelled apart) verifies it.
            _ = try await AuthFixture.register(client, email: "Race@Example.com")
            try await AuthFixture.verifyEmail(app, client, email: "Race@Example.com")
            let holder = try #require(try await app.store.user(issuer: "default", emailNormalized: "race@example.com"))
            #expect(!holder.isPendingRegistration && holder.emailVerified)
            let after = try await withThrowingTaskGroup(of: Int?.self) { group in
                for _ in 0..<20 {
                    group.addTask { try await client.call(.post, "/v1/enrollment/users", body: registrationBody(email: "race@example.com")).errorCode }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(after == Array(repeating: 416, count: 20))
            #expect(try await app.store.user(issuer: "default", emailNormalized: "race@example.com")?.id == holder.id)
        }
    }
}
