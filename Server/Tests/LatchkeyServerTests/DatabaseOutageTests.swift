import Foundation
import LatchkeyAPI
import LatchkeyCore
import HummingbirdTesting
import LatchkeyDomain
import LatchkeySQL
import LatchkeyServer
import LatchkeyTestSupport
import Logging
import Testing

/// A database that does not answer in time: every call that needs it answers 503 `not_ready` with
/// `Retry-After` within about `databaseTimeoutMilliseconds`, in its group's envelope (the contract's
/// `Unavailable` and `KratosUnavailable`). CI's outage stage stops PostgreSQL itself; here another
/// connection holds the users table locked, so the calls that read it wait past the bound.
@Suite struct DatabaseOutageTests {
    @Test(arguments: TestEnvironment.engines.filter { $0 == "postgres" })
    func aDatabaseThatDoesNotAnswerIsNotReady(engine: String) async throws {
        try await withServer(engine: engine, configure: { $0.databaseTimeoutMilliseconds = 300 }) { app, client in
            _ = try await AuthFixture.enrolledSession(app, client)
            let flow = try #require(try await client.call(.get, "/a/self-service/login/api", headers: [:]).decoded(Components.Schemas.SelfServiceFlow.self)?.id)
            let locked = AsyncStream<Void>.makeStream()
            let holder = Task {
                try await StoreFactory.withStore(app.configuration.database, logger: Logger(label: "lock"), migrate: false,
                                                 timeout: .seconds(30)) { store in
                    try await #require(store as? SQLStore).engine.transaction { db in
                        try await db.execute("LOCK TABLE users IN ACCESS EXCLUSIVE MODE")
                        locked.continuation.yield()
                        try await Task.sleep(for: .seconds(3))
                    }
                }
            }
            var signals = locked.stream.makeAsyncIterator()
            _ = await signals.next()

            let started = ContinuousClock.now
            let wallet = try await AuthFixture.passwordLogin(client)
            #expect(wallet.status == .serviceUnavailable && wallet.failure?.id == "not_ready", "\(wallet.json)")
            #expect(wallet.errorCode == 503 && wallet.headers[.retryAfter] == "1")
            let kratos = try await client.call(.post, "/a/self-service/login?flow=\(flow)", headers: SignupFixture.json,
                                               body: ["method": "password", "identifier": "ada@example.com", "password": "whatever-1"])
            #expect(kratos.status == .serviceUnavailable, "\(kratos.json) after \(ContinuousClock.now - started)")
            #expect(kratos.failure?.id == "not_ready" && kratos.failure?.code == 503, "Kratos's envelope")
            #expect(kratos.headers[.retryAfter] == "1")
            #expect(ContinuousClock.now - started < .seconds(2.5), "each failed fast, not at the lock's end")

            try await holder.value
            #expect(try await AuthFixture.passwordLogin(client).status == .ok, "served again once the database answers")
        }
    }
}
