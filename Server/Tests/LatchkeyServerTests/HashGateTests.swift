import Foundation
import HTTPTypes
import LatchkeyAPI
import LatchkeyCore
import HummingbirdTesting
import LatchkeyDomain
import LatchkeySQL
import LatchkeyServer
import LatchkeyTestSupport
import NIOCore
import NIOPosix
import Testing

/// Back-pressure on hash work: an operation whose hashes would wait longer than
/// `hashing.maxQueueMilliseconds` is refused at once, before any counter moves or any hash runs.
@Suite struct HashGateTests {
    /// With a limit below one hash's time every hashing call is over it: each is refused with 503
    /// `overloaded` and `Retry-After`, known and unknown users alike, and nothing moved: no failure
    /// counted, no lockout, no wallet created, no event of a checked credential.
    @Test(arguments: TestEnvironment.engines)
    func overloadIsRefusedBeforeAnythingMoves(engine: String) async throws {
        let database = try await TestEnvironment.freshDatabase(engine)
        try await withServer(configure: { $0.database = database }) { app, client in
            _ = try await AuthFixture.enrolledSession(app, client)
        }
        try await withServer(configure: {
            $0.database = database
            $0.hashing.maxQueueMilliseconds = 1
            $0.hashing.logN = 12
        }) { app, client in
            let answers = try await withThrowingTaskGroup(of: (Int, String?, Int?).self) { group in
                for index in 0..<8 {
                    group.addTask {
                        let answer = try await AuthFixture.passwordLogin(
                            client, email: index.isMultiple(of: 2) ? "nobody@example.com" : "ada@example.com",
                            password: "wrong-password-\(index)")
                        return (Int(answer.status.code), answer.failure?.id, answer.headers[.retryAfter].flatMap(Int.init))
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            for (status, id, retryAfter) in answers {
                #expect(status == 503 && id == "overloaded", "known and unknown users alike")
                #expect(retryAfter.map { $0 >= 1 } == true)
            }
            let registration = try await client.call(.post, "/v1/enrollment/users", body: registrationBody(email: "bob@example.com"))
            #expect(registration.status == .serviceUnavailable)
            #expect(try await app.store.user(issuer: "default", emailNormalized: "bob@example.com") == nil, "nothing written")
            #expect(try await app.store.auditEvents(after: nil, since: nil, limit: 100).allSatisfy { $0.type != .loginFailed },
                    "no credential was checked")
            let user = try #require(try await app.store.user(issuer: "default", emailNormalized: "ada@example.com"))
            #expect(user.failedAttempts == 0 && user.status == .active, "no failure counted")
        }
    }

    /// Within the limit nothing is refused: the default (2 s) admits a burst of logins on the
    /// test's cheap hashing.
    @Test func withinTheLimitEverythingIsAdmitted() async throws {
        try await withServer(configure: { $0.hashing.maxQueueMilliseconds = HashingSettings().maxQueueMilliseconds }) { app, client in
            _ = try await AuthFixture.enrolledSession(app, client)
            let codes = try await withThrowingTaskGroup(of: Int.self) { group in
                // Four: more parallel checks of one wallet than its lockout threshold answer 429.
                for _ in 0..<4 {
                    group.addTask { Int(try await AuthFixture.passwordLogin(client).status.code) }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(codes == Array(repeating: 200, count: 4))
        }
    }

    /// A storm's clients give up (their timeout closes the connection) while their hashes wait:
    /// those are not hashed. Wrong passwords sent from the wallet's own device, each connection
    /// closed as soon as the request is out, while registrations keep the hashing threads busy:
    /// none is checked, so none counts (six would deactivate the wallet) and no wrong password is
    /// in the trail.
    @Test(arguments: TestEnvironment.engines)
    func aClientThatLeftIsNotHashed(engine: String) async throws {
        try await withServer(engine: engine, live: true, configure: {
            $0.hashing.logN = 14
            $0.hashing.maxQueueMilliseconds = 60_000
        }) { app, client in
            _ = try await AuthFixture.enrolledSession(app, client)
            let port = try #require(client.port)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<2 {
                    group.addTask {
                        let answer = try await client.call(.post, "/v1/enrollment/users", headers: appHeaders(device: "busy-\(index)"),
                                                           body: registrationBody(email: "busy-\(index)@example.com"))
                        #expect(answer.status == .created)
                    }
                }
                try await Task.sleep(for: .milliseconds(20))
                for index in 0..<6 { try await Self.sendAndHangUp(port: port, wrongPassword: "wrong-password-\(index)") }
                try await group.waitForAll()
            }
            // The abandoned requests finish (skipped or, without the check, hashed) soon after the registrations.
            try await Task.sleep(for: .seconds(2))
            let user = try #require(try await app.store.user(issuer: "default", emailNormalized: "ada@example.com"))
            #expect(user.failedAttempts == 0 && user.status == .active, "no abandoned guess was checked")
            // Guesses refused before any hash (more in flight than the device's threshold) are
            // in the trail as such; none was checked.
            let failures = try await app.store.auditEvents(after: nil, since: nil, limit: 200).filter { $0.type == .loginFailed }
            #expect(failures.allSatisfy { $0.reason == "attempts_in_flight" }, "\(failures.map(\.reason))")
            #expect(try await AuthFixture.passwordLogin(client).status == .ok)
        }
    }

    /// Sends a password login and closes the connection without reading the answer.
    static func sendAndHangUp(port: Int, wrongPassword: String) async throws {
        let body = #"{"username": "ada@example.com", "password": "\#(wrongPassword)"}"#
        let request = "POST /v1/auth/login/password HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            + "X-Application-Signature: \(applicationSignature)\r\nX-Device-ID: device-1\r\n"
            + "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n" + body
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton).connect(host: "127.0.0.1", port: port).get()
        try await channel.writeAndFlush(ByteBuffer(string: request)).get()
        try await channel.close().get()
    }

    /// The Kratos-compatible login is refused in Kratos's envelope, as the contract documents.
    @Test func overloadOnTheKratosLoginUsesItsEnvelope() async throws {
        try await withServer(configure: {
            $0.hashing.maxQueueMilliseconds = 1
            $0.hashing.logN = 12
        }) { _, client in
            let flow = try #require(try await client.call(.get, "/a/self-service/login/api", headers: [:]).decoded(Components.Schemas.SelfServiceFlow.self)?.id)
            let refused = try await client.call(.post, "/a/self-service/login?flow=\(flow)", headers: SignupFixture.json,
                                                body: ["method": "password", "identifier": "+4366412345678", "password": "whatever-1"])
            #expect(refused.status == .serviceUnavailable)
            #expect(refused.failure?.id == "overloaded" && refused.failure?.code == 503, "\(refused.json)")
            #expect(refused.headers[.retryAfter].flatMap(Int.init).map { $0 >= 1 } == true)
        }
    }

    /// The admission comes first. A login the gate refuses has its proof neither checked
    /// nor recorded (on every replica's database): the refusal wrote nothing, so the proof may be
    /// sent again into another admission.
    @Test(arguments: TestEnvironment.engines)
    func aRefusedLoginRecordsNoProof(engine: String) async throws {
        let database = try await TestEnvironment.freshDatabase(engine)
        try await withServer(configure: { $0.database = database }) { app, client in
            _ = try await AuthFixture.enrolledSession(app, client)
        }
        try await withServer(configure: {
            $0.database = database
            $0.publicURL = TestDeviceKey.base
            $0.hashing.maxQueueMilliseconds = 1
            $0.hashing.logN = 12
        }) { app, client in
            let device = TestDeviceKey()
            // A current nonce, from an answer to a proved request that hashes nothing.
            let read = try await client.call(.get, "/v1/enrollment/mfa-questions",
                                             headers: appHeaders().with(proof: device.proof("GET", "/v1/enrollment/mfa-questions")))
            let nonce = try #require(read.headers[HTTPField.Name("DPoP-Nonce")!])
            let jti = UUID().uuidString
            let refused = try await client.call(.post, "/v1/auth/login/password",
                                                headers: appHeaders().with(proof: device.proof("POST", "/v1/auth/login/password",
                                                                                               nonce: nonce, jti: jti)),
                                                body: ["username": "ada@example.com", "password": AuthFixture.password])
            #expect(refused.status == .serviceUnavailable && refused.failure?.id == "overloaded", "\(refused.json)")
            let time = Date()
            let unrecorded = try await app.store.recordProof(digest: SecureRandom.digest(device.thumbprint + "." + jti),
                                                             expiresAt: time.addingTimeInterval(120), now: time)
            #expect(unrecorded, "the refused login's proof was not recorded")
        }
    }
}
