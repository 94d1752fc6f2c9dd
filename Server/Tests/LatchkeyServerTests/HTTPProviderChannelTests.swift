import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import LatchkeyDomain
import LatchkeyServer
import LatchkeyTestSupport
import NIOCore
import NIOHTTP1
import Testing

/// A provider's API as the `http` channel meets it: a real HTTP server on 127.0.0.1 that records
/// each request and answers with the next of its queued answers (200 when none is left).
actor ProviderReceiver {
    struct Request: Sendable {
        let method: String
        let headers: HTTPFields
        let body: Data
        func header(_ name: String) -> String? { headers[HTTPField.Name(name)!] }
    }

    struct Answer: Sendable {
        var status: HTTPResponse.Status
        var headers: HTTPFields = [:]
        var body = ""
        /// Seconds to stall after sending the head and the body's first bytes, before the rest.
        var stallSeconds = 0
    }

    private var answers: [Answer]
    private(set) var requests: [Request] = []

    init(answers: [Answer]) { self.answers = answers }

    /// Queues `answer` after those already queued.
    func queue(_ answer: Answer) { answers.append(answer) }

    func receive(_ request: Request) -> Answer {
        requests.append(request)
        return answers.isEmpty ? Answer(status: .ok, body: #"{"status":"queued"}"#) : answers.removeFirst()
    }

    /// Runs `body` with a receiver listening at the URL it is given.
    static func with(answers: [Answer] = [], _ body: @escaping @Sendable (String, ProviderReceiver) async throws -> Void) async throws {
        let receiver = ProviderReceiver(answers: answers)
        let router = Router()
        for method in [HTTPRequest.Method.post, .put] {
            router.on("/provider", method: method) { request, _ -> Response in
                let data = try await request.body.collect(upTo: 1 << 20)
                let answer = await receiver.receive(Request(method: request.method.rawValue, headers: request.headers, body: Data(buffer: data)))
                guard answer.stallSeconds > 0 else {
                    return Response(status: answer.status, headers: answer.headers, body: .init(byteBuffer: ByteBuffer(string: answer.body)))
                }
                return Response(status: answer.status, headers: answer.headers, body: ResponseBody { (writer: inout any ResponseBodyWriter) in
                    try await writer.write(ByteBuffer(string: "{"))
                    try? await Task.sleep(for: .seconds(answer.stallSeconds))
                    try await writer.write(ByteBuffer(string: answer.body))
                    try await writer.finish(nil)
                })
            }
        }
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        try await app.test(.live) { client in try await body("http://127.0.0.1:\(try #require(client.port))/provider", receiver) }
    }
}

@Suite struct HTTPProviderChannelTests {
    /// A name that needs escaping in every format: `&`, `"`, `+` and letters beyond ASCII.
    static let issuer = "Bücher & \"Söhne\" + Co"

    /// The courier settings of `docs/examples/courier/<name>`, loaded as a configuration file.
    static func example(_ name: String) throws -> CourierSettings {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        return try ServerConfiguration.load(file: root.appendingPathComponent("docs/examples/courier/\(name)").path).courier
    }

    /// The email example pointed at `url`, its token read from a new file holding `token`.
    static func emailExample(url: String, token: String) throws -> EmailChannelSettings {
        var email = try #require(try example("email-json.yaml").email)
        email.http?.url = url
        let file = try TestEnvironment.temporaryDirectory().appendingPathComponent("postmark-token")
        try Data((token + "\n").utf8).write(to: file)
        let index = try #require(email.http?.headers.firstIndex { $0.name == "X-Postmark-Server-Token" })
        email.http?.headers[index].secret = SecretReference(file: file.path)
        return email
    }

    /// The form body's fields, decoded as a form parser decodes them.
    static func form(_ data: Data) -> [String: String] {
        func decode(_ part: Substring) -> String { part.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? "<undecodable>" }
        return Dictionary(String(decoding: data, as: UTF8.self).split(separator: "&").map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            return (decode(parts[0]), parts.count > 1 ? decode(parts[1]) : "")
        }, uniquingKeysWith: { first, _ in first })
    }

    /// A registration's verification email goes to the mail API as the email example says: its
    /// token header from the file, the message's values in a JSON body that parses back to them.
    @Test func theEmailExampleSendsARegistrationsVerificationEmailAsJSON() async throws {
        try await ProviderReceiver.with { url, receiver in
            let email = try Self.emailExample(url: url, token: "pm-token-0123")
            try await withServer(configure: { $0.courier.email = email; $0.issuer.name = Self.issuer }) { app, client in
                #expect(try await client.call(.post, "/v1/enrollment/users", body: registrationBody()).status == .created)
                // Read before delivery: the sealed payload is dropped once delivered.
                let pending = try #require(try await app.store.outboxMessages().first)
                let message = try #require(app.cipher.open(pending))
                #expect(try await app.courier.deliverDue() == 1)
                let row = try #require(try await app.store.outboxMessages().first)
                #expect(row.deliveredAt != nil && row.attempts == 1, "\(row.lastError ?? "")")
                let requests = await receiver.requests
                #expect(requests.count == 1)
                let request = try #require(requests.first)
                #expect(request.method == "POST")
                #expect(request.header("Content-Type") == "application/json")
                #expect(request.header("Accept") == "application/json")
                #expect(request.header("X-Postmark-Server-Token") == "pm-token-0123", "the file's content without its newline")
                #expect(request.header("Idempotency-Key") == row.id)
                let body = try #require(try JSONSerialization.jsonObject(with: request.body) as? [String: Any],
                                        "\(String(decoding: request.body, as: UTF8.self))")
                #expect(body["From"] as? String == "Wallet <no-reply@wallet.example>")
                #expect(body["To"] as? String == "ada@example.com")
                #expect(body["Subject"] as? String == message.subject)
                #expect(body["TextBody"] as? String == message.body)
                #expect(message.html != nil && body["HtmlBody"] as? String == message.html, "an email's HTML part, quotes and all")
                #expect((body["Metadata"] as? [String: String]) == ["message": row.id, "template": row.template])
                // The values that needed escaping arrived as they were written.
                #expect(message.subject.contains(Self.issuer) && message.body.contains(Self.issuer) && message.body.contains("\n"),
                        "\(message.subject) \(message.body)")
            }
        }
    }

    /// A phone sign-up's code goes to the SMS provider as the SMS example says: a form POST with
    /// basic authentication, its fields decoding back to the message's values. The example reads
    /// the token from the environment; here it is read from a file instead, because setting a
    /// variable while other tests start processes (which copy the environment) is a data race.
    @Test func theSMSExampleSendsASignupCodeAsAForm() async throws {
        let tokenFile = FileManager.default.temporaryDirectory.appendingPathComponent("twilio-token-\(UUID().uuidString)")
        try Data("twilio-token-4567\n".utf8).write(to: tokenFile)
        defer { try? FileManager.default.removeItem(at: tokenFile) }
        try await ProviderReceiver.with { url, receiver in
            var sms = try #require(try Self.example("sms-form.yaml").sms)
            #expect(sms.http?.basicAuth?.password == SecretReference(env: "TWILIO_AUTH_TOKEN"), "the example's token is the environment's")
            sms.http?.url = url
            sms.http?.basicAuth?.password = SecretReference(file: tokenFile.path)
            try await withServer(configure: {
                SignupFixture.configure(&$0)
                $0.courier.sms = sms
                $0.issuer.name = Self.issuer
            }) { app, client in
                let flow = try await SignupFixture.newFlow(client)
                #expect(try await SignupFixture.sendCode(client, flow: flow).status == .created)
                let pending = try #require(try await app.store.outboxMessages().first { $0.template == "otp" })
                // Read before delivery: the sealed payload is dropped once delivered.
                let message = try #require(app.cipher.open(pending))
                #expect(try await app.courier.deliverDue() == 1)
                let row = try #require(try await app.store.outboxMessages().first { $0.template == "otp" })
                #expect(row.deliveredAt != nil, "\(row.lastError ?? "")")
                let request = try #require(await receiver.requests.first)
                #expect(await receiver.requests.count == 1)
                #expect(request.method == "POST")
                #expect(request.header("Content-Type") == "application/x-www-form-urlencoded; charset=utf-8")
                let credentials = Data("AC00000000000000000000000000000000:twilio-token-4567".utf8).base64EncodedString()
                #expect(request.header("Authorization") == "Basic \(credentials)")
                #expect(request.header("Idempotency-Key") == row.id)
                let raw = String(decoding: request.body, as: UTF8.self)
                #expect(raw.hasPrefix("To=%2B439999999999&From=%2B15005550006&Body="), "\(raw)")
                let fields = Self.form(request.body)
                #expect(fields == ["To": SignupFixture.phone, "From": "+15005550006", "Body": message.body], "\(raw)")
                let code = try #require(message.data["code"])
                #expect(message.body.contains(Self.issuer) && message.body.contains(code), "\(message.body)")
            }
        }
    }

    /// A 429 with `Retry-After` is tried again no sooner than the provider asked, then delivered
    /// once; the retry carries the same `Idempotency-Key`.
    @Test func aRateLimitedRequestWaitsForRetryAfter() async throws {
        let clock = TestClock(start: Date(timeIntervalSince1970: 7_000_000))
        let limited = ProviderReceiver.Answer(status: .tooManyRequests, headers: [.retryAfter: "120"], body: "slow down")
        try await ProviderReceiver.with(answers: [limited]) { url, receiver in
            let email = try Self.emailExample(url: url, token: "t")
            try await withServer(clock: clock, configure: { $0.courier.email = email }) { app, client in
                #expect(try await client.call(.post, "/v1/enrollment/users", body: registrationBody()).status == .created)
                #expect(try await app.courier.deliverDue() == 1)
                let waiting = try #require(try await app.store.outboxMessages().first)
                #expect(waiting.deliveredAt == nil && waiting.failedAt == nil && waiting.attempts == 1)
                #expect(waiting.nextAttemptAt == clock.now.addingTimeInterval(120))
                #expect(waiting.lastError?.contains("HTTP 429") == true && waiting.lastError?.contains("slow down") == true,
                        "\(waiting.lastError ?? "")")
                clock.advance(119)
                #expect(try await app.courier.deliverDue() == 0, "not before Retry-After")
                clock.advance(1)
                #expect(try await app.courier.deliverDue() == 1)
                #expect(try await app.store.outboxMessages().first?.deliveredAt != nil)
                clock.advance(3600)
                #expect(try await app.courier.deliverDue() == 0, "delivered once")
                let keys = await receiver.requests.map { $0.header("Idempotency-Key") }
                #expect(keys == [waiting.id, waiting.id])
            }
        }
    }

    /// A 503 without `Retry-After` is retried with the courier's backoff.
    @Test func aServerErrorIsRetried() async throws {
        let clock = TestClock(start: Date(timeIntervalSince1970: 7_100_000))
        try await ProviderReceiver.with(answers: [.init(status: .serviceUnavailable)]) { url, receiver in
            let email = try Self.emailExample(url: url, token: "t")
            try await withServer(clock: clock, configure: { $0.courier.email = email }) { app, client in
                #expect(try await client.call(.post, "/v1/enrollment/users", body: registrationBody()).status == .created)
                #expect(try await app.courier.deliverDue() == 1)
                let waiting = try #require(try await app.store.outboxMessages().first)
                #expect(waiting.failedAt == nil && waiting.nextAttemptAt == clock.now.addingTimeInterval(1))
                #expect(waiting.lastError?.contains("HTTP 503") == true, "\(waiting.lastError ?? "")")
                clock.advance(1)
                #expect(try await app.courier.deliverDue() == 1)
                #expect(try await app.store.outboxMessages().first?.deliveredAt != nil)
                #expect(await receiver.requests.count == 2)
            }
        }
    }

    /// Any other 4xx is final: recorded once with the provider's status and answer, never retried.
    @Test func aRefusalIsRecordedOnceAndNeverRetried() async throws {
        let clock = TestClock(start: Date(timeIntervalSince1970: 7_200_000))
        let refusal = ProviderReceiver.Answer(status: .badRequest, body: #"{"ErrorCode": 300, "Message": "Invalid 'To' address."}"#)
        try await ProviderReceiver.with(answers: [refusal]) { url, receiver in
            let email = try Self.emailExample(url: url, token: "t")
            try await withServer(clock: clock, configure: { $0.courier.email = email }) { app, client in
                #expect(try await client.call(.post, "/v1/enrollment/users", body: registrationBody()).status == .created)
                #expect(try await app.courier.deliverDue() == 1)
                let failed = try #require(try await app.store.outboxMessages().first)
                #expect(failed.failedAt != nil && failed.deliveredAt == nil && failed.attempts == 1)
                #expect(failed.lastError?.contains("HTTP 400") == true && failed.lastError?.contains(#""ErrorCode": 300"#) == true,
                        "\(failed.lastError ?? "")")
                clock.advance(86_400)
                #expect(try await app.courier.deliverDue() == 0)
                #expect(await receiver.requests.count == 1)
            }
        }
    }

    /// A provider that redirects elsewhere gets nothing followed: the channel makes no request to
    /// the redirect's target (which would receive the secret header and the body), and the
    /// message fails once with the 3xx recorded.
    @Test func aRedirectIsNotFollowedAndFailsTheMessage() async throws {
        try await ProviderReceiver.with { elsewhere, target in
            let redirect = ProviderReceiver.Answer(status: .temporaryRedirect, headers: [.location: elsewhere])
            try await ProviderReceiver.with(answers: [redirect]) { url, receiver in
                let email = try Self.emailExample(url: url, token: "pm-secret-token")
                try await withServer(configure: { $0.courier.email = email }) { app, client in
                    #expect(try await client.call(.post, "/v1/enrollment/users", body: registrationBody()).status == .created)
                    #expect(try await app.courier.deliverDue() == 1)
                    #expect(await receiver.requests.count == 1)
                    #expect(await target.requests.isEmpty, "the redirect's target received the token and the body")
                    let row = try #require(try await app.store.outboxMessages().first)
                    #expect(row.failedAt != nil && row.deliveredAt == nil && row.attempts == 1, "\(row.lastError ?? "")")
                    #expect(row.lastError?.contains("HTTP 307 Temporary Redirect") == true, "\(row.lastError ?? "")")
                }
            }
        }
    }

    /// A refusal that echoes the message (as Twilio echoes `To` and some providers the body) is
    /// recorded with the message's values replaced, in every encoding the echo may use: the code,
    /// the link and the link's token alone never reach the outbox row or the admin API.
    @Test func aRefusalEchoingTheMessageIsRecordedWithoutIt() async throws {
        try await ProviderReceiver.with { url, receiver in
            let email = try Self.emailExample(url: url, token: "t")
            try await withServer(configure: { $0.courier.email = email }) { app, client in
                #expect(try await client.call(.post, "/v1/enrollment/users", body: registrationBody()).status == .created)
                let pending = try #require(try await app.store.outboxMessages().first)
                let message = try #require(app.cipher.open(pending))
                let link = try #require(message.data["link"])
                let token = try #require(URLComponents(string: link)?.queryItems?.compactMap(\.value).max { $0.count < $1.count })
                #expect(token.count >= 16, "\(link)")
                let escaped = link.replacingOccurrences(of: "/", with: "\\/")
                let unreserved = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~")
                let encoded = try #require(link.addingPercentEncoding(withAllowedCharacters: unreserved))
                await receiver.queue(.init(status: .badRequest, body: #"{"link":""# + link + #"","escaped":""# + escaped
                                           + #"","encoded":""# + encoded + #"","token":""# + token + #"","to":""# + message.to + "\"}"))
                #expect(try await app.courier.deliverDue() == 1)
                let row = try #require(try await app.store.outboxMessages().first)
                #expect(row.failedAt != nil, "\(row.lastError ?? "")")
                let recorded = try #require(row.lastError)
                #expect(recorded.contains("HTTP 400") && recorded.contains("[redacted]"), "\(recorded)")
                for secret in [token, link, escaped, encoded, message.to] {
                    #expect(!recorded.contains(secret), "\(recorded)")
                }
            }
        }
    }

    /// A provider that sends its answer's head and then stalls holds the attempt no longer than
    /// `timeoutSeconds`: the attempt is a transient failure, tried again later.
    @Test func aStalledAnswerEndsTheAttemptWithinTheTimeout() async throws {
        try await ProviderReceiver.with(answers: [.init(status: .ok, body: "}", stallSeconds: 6)]) { url, receiver in
            var email = try Self.emailExample(url: url, token: "t")
            email.http?.timeoutSeconds = 1
            try await withServer(configure: { $0.courier.email = email }) { app, client in
                #expect(try await client.call(.post, "/v1/enrollment/users", body: registrationBody()).status == .created)
                let started = ContinuousClock.now
                #expect(try await app.courier.deliverDue() == 1)
                #expect(ContinuousClock.now - started < .seconds(4))
                let row = try #require(try await app.store.outboxMessages().first)
                #expect(row.deliveredAt == nil && row.failedAt == nil && row.attempts == 1, "\(row.lastError ?? "")")
                #expect(row.lastError?.contains("No complete answer within 1 seconds") == true, "\(row.lastError ?? "")")
                #expect(await receiver.requests.count == 1)
            }
        }
    }

    /// 408 and 425 are worth retrying like 429 and 5xx; a 3xx or another 4xx is final.
    @Test func whichStatusesAreRetried() {
        func kind(_ status: HTTPResponseStatus) -> DeliveryFailure.Kind? {
            HTTPProviderChannel.failure(status: status, headers: [:], body: ByteBuffer(), now: Date())?.kind
        }
        #expect(kind(.ok) == nil && kind(.accepted) == nil)
        #expect(kind(.requestTimeout) == .transient && kind(.init(statusCode: 425)) == .transient)
        #expect(kind(.tooManyRequests) == .transient && kind(.badGateway) == .transient)
        #expect(kind(.temporaryRedirect) == .permanent && kind(.badRequest) == .permanent && kind(.unauthorized) == .permanent)
    }

    /// A secret that cannot be read stops the start, naming the setting; the error holds no secret.
    @Test func aMissingSecretStopsTheStart() async throws {
        var email = try #require(try Self.example("email-json.yaml").email)
        email.http?.url = "http://127.0.0.1:9/provider"
        var configuration = try TestEnvironment.configuration(database: try await TestEnvironment.freshDatabase("sqlite"))
        configuration.courier.email = email
        #expect(email.http?.headers[1].secret?.file == "/run/secrets/postmark-token")
        let error = await #expect(throws: ConfigurationError.self) { _ = try await TestEnvironment.application(configuration) }
        #expect(error?.key == "courier.email.http.headers[1].secret.file", "\(String(describing: error))")

        var sms = try #require(try Self.example("sms-form.yaml").sms)
        sms.http?.basicAuth?.password = SecretReference(env: "LATCHKEY_TEST_UNSET_SMS_TOKEN")
        configuration.courier.email = nil
        configuration.courier.sms = sms
        let unset = await #expect(throws: ConfigurationError.self) { _ = try await TestEnvironment.application(configuration) }
        #expect(unset?.key == "courier.sms.http.basicAuth.password.env", "\(String(describing: unset))")
    }

    /// What cannot make a request is refused when the file is read, naming the setting.
    @Test(arguments: [
        (#"{ url: "ftp://provider.example/", body: "x" }"#, "courier.sms.http.url"),
        (#"{ url: "https://provider.example/", method: GET, body: "x" }"#, "courier.sms.http.method"),
        (#"{ url: "https://provider.example/", format: xml, body: "x" }"#, "courier.sms.http.format"),
        (#"{ url: "https://provider.example/" }"#, "courier.sms.http.body"),
        (#"{ url: "https://provider.example/", format: form, body: "To={{#to}}" }"#, "courier.sms.http.body"),
        (#"{ url: "https://provider.example/", body: '{"to": {{to}}}' }"#, "courier.sms.http.body"),
        (#"{ url: "https://provider.example/", body: '{"code": {{code}}}' }"#, "courier.sms.http.body"),
        (#"{ url: "http://provider.example/", body: '{}' }"#, "courier.sms.http.url"),
        (#"{ url: "http://10.0.0.7/", body: '{}' }"#, "courier.sms.http.url"),
        (#"{ url: "https://provider.example/", body: '{}', bodies: [{ template: otp, body: '{"a": "{{a}"}' }] }"#,
         "courier.sms.http.bodies[0].body"),
        (#"{ url: "https://provider.example/", body: '{}', headers: [{ name: X-Key, value: v, secret: { env: K } }] }"#,
         "courier.sms.http.headers[0]"),
        (#"{ url: "https://provider.example/", body: '{}', headers: [{ name: "X Key", value: v }] }"#, "courier.sms.http.headers[0].name"),
        (#"{ url: "https://provider.example/", body: '{}', basicAuth: { username: sid } }"#, "courier.sms.http.basicAuth.password"),
        (#"{ url: "https://provider.example/", body: '{}', timeoutSeconds: 0 }"#, "courier.sms.http.timeoutSeconds"),
    ])
    func badSettingsAreRefusedNamingTheKey(http: String, key: String) throws {
        let error = #expect(throws: ConfigurationError.self) {
            _ = try ServerConfiguration.parse(yaml: "courier: { sms: { channel: http, http: \(http) } }")
        }
        #expect(error?.key == key, "\(String(describing: error))")
    }

    /// Both examples load and pass validation as shipped, and so does every provider call
    /// `docs/configuration.md` shows (there beside channels that do not use it).
    @Test func theExamplesAreValid() throws {
        #expect(try Self.example("sms-form.yaml").route(.sms).settings.channel == .http)
        #expect(try Self.example("email-json.yaml").route(.email).settings.channel == .http)
        var documented = 0
        for block in try DocumentedSettingsTests.documentedBlocks() {
            let courier = try ServerConfiguration.parse(yaml: block).courier
            for (key, http) in [("courier.email.http", courier.email?.http), ("courier.sms.http", courier.sms?.http)] {
                guard let http else { continue }
                #expect(throws: Never.self, "\(key) in docs/configuration.md") { try http.validate(key: key) }
                documented += 1
            }
        }
        #expect(documented == 4, "email's and SMS's in the settings and in the providers' block")
    }

    /// `Retry-After` as seconds or as an HTTP-date (RFC 9110 §10.2.3).
    @Test func retryAfterIsReadAsSecondsOrADate() {
        let now = Date(timeIntervalSince1970: 1_445_412_480)   // Wed, 21 Oct 2015 07:28:00 GMT
        #expect(HTTPProviderChannel.retryAfter("120", now: now) == 120)
        #expect(HTTPProviderChannel.retryAfter("Wed, 21 Oct 2015 07:30:00 GMT", now: now) == 120)
        #expect(HTTPProviderChannel.retryAfter("Wed, 21 Oct 2015 07:00:00 GMT", now: now) == 0)
        #expect(HTTPProviderChannel.retryAfter("Wed, 21 Oct 2025 07:28:00 GMT", now: now) == HTTPProviderChannel.longestRetryAfter)
        #expect(HTTPProviderChannel.retryAfter("99999999", now: now) == HTTPProviderChannel.longestRetryAfter)
        #expect(HTTPProviderChannel.retryAfter("soon", now: now) == nil)
        #expect(HTTPProviderChannel.retryAfter("-5", now: now) == nil)
    }
}
