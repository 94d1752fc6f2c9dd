import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import LatchkeyDomain
import LatchkeySQL
import LatchkeyServer
import LatchkeyTestSupport
import Logging
import NIOCore
import ServiceLifecycle
import Testing

/// A real HTTP receiver for webhook deliveries that refuses the first `failures` requests.
actor Receiver {
    var failures: Int
    var bodies: [Data] = []
    var keys: [String] = []
    init(failures: Int) { self.failures = failures }
    func receive(_ body: Data, key: String?) -> Bool {
        if failures > 0 {
            failures -= 1
            return false
        }
        bodies.append(body)
        keys.append(key ?? "")
        return true
    }
}

@Suite struct CourierTests {
    @Test func webhookDeliveryRetriesWithBackoffUntilAccepted() async throws {
        let receiver = Receiver(failures: 2)
        let router = Router()
        router.post("/messages") { request, context -> Response in
            let body = try await request.body.collect(upTo: 1 << 20)
            let accepted = await receiver.receive(Data(buffer: body), key: request.headers[HTTPField.Name("Idempotency-Key")!])
            return Response(status: accepted ? .accepted : .internalServerError)
        }
        let hook = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        try await PatientLiveServer.run(hook) { hookClient in
            let port = try #require(hookClient.port)
            let clock = TestClock(start: Date(timeIntervalSince1970: 5_000_000))
            var configuration = try TestEnvironment.configuration(database: try await TestEnvironment.freshDatabase("sqlite"))
            configuration.courier.channel = .webhook
            configuration.courier.url = "http://127.0.0.1:\(port)/messages"
            let app = try await buildApplication(configuration, options: BuildOptions(
                logger: TestEnvironment.logger, now: { clock.now }, pepper: TestEnvironment.pepper, runCourier: false))
            try await app.application.test(.router) { client in
                let created = try await client.call(.post, "/v1/enrollment/users", body: registrationBody())
                #expect(created.status == .created)
            }
            #expect(try await app.courier.deliverDue() == 1)
            let afterFirst = try #require(try await app.store.outboxMessages().first)
            #expect(afterFirst.attempts == 1)
            #expect(afterFirst.nextAttemptAt == clock.now.addingTimeInterval(1))
            #expect(try await app.courier.deliverDue() == 0, "not due before the backoff")
            clock.advance(1)
            #expect(try await app.courier.deliverDue() == 1)
            #expect(try await app.store.outboxMessages().first?.nextAttemptAt == clock.now.addingTimeInterval(2))
            clock.advance(2)
            #expect(try await app.courier.deliverDue() == 1)
            let delivered = try #require(try await app.store.outboxMessages().first)
            #expect(delivered.deliveredAt != nil)
            #expect(delivered.attempts == 3)
            let bodies = await receiver.bodies
            #expect(bodies.count == 1)
            let raw = try #require(bodies.first)
            let body = try #require(try JSONSerialization.jsonObject(with: raw) as? [String: Any])
            #expect(body["id"] as? String == delivered.id)
            #expect(body["channel"] as? String == "email")
            #expect(body["to"] as? String == "ada@example.com")
            #expect(body["template"] as? String == "email_verification")
            #expect((body["subject"] as? String)?.isEmpty == false)
            #expect((body["body"] as? String)?.contains("/verify-email?token=") == true)
            #expect(((body["data"] as? [String: String])?["link"])?.contains("token=") == true)
            #expect(await receiver.keys == [delivered.id])
            try await app.store.close()
        }
    }

    @Test func givesUpAfterMaxAttempts() async throws {
        struct Refusing: MessageChannel {
            func deliver(_ message: OutgoingMessage) async throws { throw CancellationError() }
        }
        let clock = TestClock(start: Date(timeIntervalSince1970: 6_000_000))
        var configuration = try TestEnvironment.configuration(database: try await TestEnvironment.freshDatabase("sqlite"))
        configuration.courier.maxAttempts = 2
        let app = try await TestEnvironment.application(configuration, now: { clock.now }, channel: Refusing())
        try await app.application.test(.router) { client in
            _ = try await client.call(.post, "/v1/enrollment/users", body: registrationBody())
        }
        try await app.courier.deliverDue()
        clock.advance(5)
        try await app.courier.deliverDue()
        clock.advance(3600)
        #expect(try await app.courier.deliverDue() == 0)
        #expect(try await app.store.outboxMessages().first?.failedAt != nil)
        try await app.store.close()
    }

    /// A channel that never answers (a relay that stalls after accepting the connection) is
    /// given up on after `courier.attemptTimeoutSeconds`: the attempt counts as transient, the
    /// message is due again after the backoff, and the pass does not hang.
    @Test func anAttemptThatNeverEndsIsCutOffAndRetried() async throws {
        struct Stalled: MessageChannel {
            func deliver(_ message: OutgoingMessage) async throws { try await Task.sleep(for: .seconds(3600)) }
        }
        let clock = TestClock(start: Date(timeIntervalSince1970: 5_000_000))
        var configuration = try TestEnvironment.configuration(database: try await TestEnvironment.freshDatabase("sqlite"))
        configuration.courier.attemptTimeoutSeconds = 1
        let app = try await buildApplication(configuration, options: BuildOptions(
            logger: TestEnvironment.logger, now: { clock.now }, pepper: TestEnvironment.pepper, channel: Stalled(), runCourier: false))
        try await app.application.test(.router) { client in
            let created = try await client.call(.post, "/v1/enrollment/users", body: registrationBody())
            #expect(created.status == .created)
        }
        let started = ContinuousClock.now
        #expect(try await app.courier.deliverDue() == 1)
        #expect(ContinuousClock.now - started < .seconds(30), "the pass ends once the attempt's time is up")
        let row = try #require(try await app.store.outboxMessages().first)
        #expect(row.attempts == 1 && row.deliveredAt == nil && row.failedAt == nil, "transient: retried, not failed")
        #expect(row.nextAttemptAt == clock.now.addingTimeInterval(1))
        #expect(row.lastError?.contains("courier.attemptTimeoutSeconds") == true, "\(row.lastError ?? "")")
        try await app.store.close()
    }

    /// A refusal that names the recipient or echoes the link (a relay's `550 <ada@example.com>`)
    /// is recorded, and logged, without them, whatever the channel.
    @Test func aRefusalEchoingTheRecipientOrLinkIsRecordedWithoutThem() async throws {
        struct Echoing: MessageChannel {
            func deliver(_ message: OutgoingMessage) async throws {
                throw DeliveryFailure(.permanent, answer: "550 5.1.1 <\(message.to)>: rejected, about \(message.data["link"] ?? "")")
            }
        }
        var configuration = try TestEnvironment.configuration(database: try await TestEnvironment.freshDatabase("sqlite"))
        configuration.courier.maxAttempts = 3
        let app = try await buildApplication(configuration, options: BuildOptions(
            logger: TestEnvironment.logger, pepper: TestEnvironment.pepper, channel: Echoing(), runCourier: false))
        try await app.application.test(.router) { client in
            let created = try await client.call(.post, "/v1/enrollment/users", body: registrationBody())
            #expect(created.status == .created)
        }
        let pending = try #require(try await app.store.outboxMessages().first)
        let link = try #require(app.cipher.open(pending)?.data["link"])
        #expect(try await app.courier.deliverDue() == 1)
        let recorded = try #require(try await app.store.outboxMessages().first?.lastError)
        #expect(recorded.hasPrefix("permanent: 550 5.1.1 <[redacted]>: rejected"), "\(recorded)")
        #expect(!recorded.contains(pending.recipient) && !recorded.contains(link), "\(recorded)")
        try await app.store.close()
    }

    @Test func runningWorkerDeliversToTheFileChannel() async throws {
        let configuration = try TestEnvironment.configuration(database: try await TestEnvironment.freshDatabase("sqlite"))
        let app = try await TestEnvironment.application(configuration, runCourier: true)
        try await app.application.test(.router) { client in
            _ = try await client.call(.post, "/v1/enrollment/users", body: registrationBody())
            for _ in 0..<100 where (try? String(contentsOfFile: configuration.courier.path!, encoding: .utf8)) == nil {
                try await Task.sleep(for: .milliseconds(50))
            }
        }
        let text = try String(contentsOfFile: configuration.courier.path!, encoding: .utf8)
        #expect(text.contains("\"template\":\"email_verification\""))
        try await app.store.close()
    }
}

/// A settable clock for tests.
final class TestClock: @unchecked Sendable {
    private let lock = NSLock()
    private var current: Date
    init(start: Date) { current = start }
    var now: Date { lock.withLock { current } }
    func advance(_ seconds: TimeInterval) { lock.withLock { current = current.addingTimeInterval(seconds) } }

    /// The clock of the server the running test talks to (`withServer(clock:)`), if it has one.
    @TaskLocal static var ofServer: TestClock?
    /// Now, as the server under test sees it: a phone's proofs are signed at the server's time
    /// (its clock in sync), however long the test waited for a core among the suites running
    /// beside it.
    static var serverNow: Date { ofServer?.now ?? Date() }
}
