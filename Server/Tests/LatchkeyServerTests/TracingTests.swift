import Foundation
import HTTPTypes
import HummingbirdTesting
import LatchkeyDomain
import LatchkeyServer
import LatchkeyTestSupport
import NIOCore
import Testing

/// Traces over HTTP (docs/operations.md, "Tracing"): each test sends its own W3C `traceparent`
/// on every request, as a load balancer would, and reads the spans of its trace from the
/// process's tracer (`TraceRecorder`), so the header is shown honoured and parallel tests do not
/// see each other's spans.
@Suite struct TracingTests {
    /// A client that sends `traceparent` with every request.
    struct TracedClient: TestClientProtocol {
        let inner: any TestClientProtocol
        let traceparent: String
        var port: Int? { inner.port }

        func executeRequest(uri: String, method: HTTPRequest.Method, headers: HTTPFields, body: ByteBuffer?) async throws -> TestResponse {
            var headers = headers
            headers[HTTPField.Name("traceparent")!] = traceparent
            return try await inner.executeRequest(uri: uri, method: method, headers: headers, body: body)
        }
    }

    static func tracingOn(_ configuration: inout ServerConfiguration) { configuration.telemetry.tracing.enabled = true }

    /// A registration, its email verified, logins with the nonce, the password and the PIN, a
    /// password reset through the portal and a login with the new password: no exported span
    /// name, attribute or event holds the email, the password, the PIN, an answer, a token, a
    /// nonce, a link's token, the portal's grant or CSRF value, or the new password; each request
    /// is a server span named by its operation, child of the caller's span.
    @Test(arguments: TestEnvironment.engines)
    func aJourneyExportsNoSecretAndLinksItsSpans(engine: String) async throws {
        let recorder = TraceRecorder.shared
        let trace = recorder.watchNewTrace()
        try await withServer(engine: engine, configure: Self.tracingOn) { app, plain in
            let client = TracedClient(inner: plain, traceparent: trace.header)
            let email = "tracing-\(UUID().uuidString.prefix(8).lowercased())@example.com"
            var secrets: Set<String> = [email, String(email.split(separator: "@")[0]), AuthFixture.password, AuthFixture.pin,
                                        PortalTests.newPassword]
            secrets.formUnion(AuthFixture.answers.values)

            let nonce = try await AuthFixture.register(client, email: email)
            secrets.insert(nonce)
            let verification = try await EmailLink.path(app, "email_verification", to: email)
            secrets.insert(try Self.token(in: verification))
            try await AuthFixture.verifyEmail(app, client, email: email)
            let nonceLogin = try await client.call(.post, "/v1/auth/login/nonce", headers: appHeaders(), body: ["nonce": nonce])
            secrets.insert(try #require(nonceLogin.login?.sessionToken))
            let passwordLogin = try await AuthFixture.passwordLogin(client, email: email)
            secrets.insert(try #require(passwordLogin.login?.sessionToken))
            let pinLogin = try await client.call(.post, "/v1/auth/login/pin", body: ["pin": AuthFixture.pin])
            secrets.insert(try #require(pinLogin.login?.sessionToken, "\(pinLogin.json)"))

            let link = try await ResetFixture.requestLink(app, client, email: email)
            secrets.insert(try Self.token(in: link))
            let browser = PortalBrowser(client)
            let form = try await ResetFixture.grantForm(browser, link)
            let grant = try #require(form.hidden("grant")), csrf = try #require(form.hidden("csrf"))
            secrets.formUnion([grant, csrf])
            let done = try await browser.post("/reset/credential", ["grant": grant, "csrf": csrf, "new": PortalTests.newPassword,
                                                                    "confirm": PortalTests.newPassword])
            #expect(done.status == .ok, "\(done.html)")
            let relogin = try await AuthFixture.passwordLogin(client, email: email, password: PortalTests.newPassword)
            secrets.insert(try #require(relogin.login?.sessionToken))

            let spans = recorder.spans(of: trace.traceID)
            let requests = spans.filter { $0.kind == .server }
            #expect(requests.count >= 10, "one server span per request: \(requests.map(\.name))")
            for span in spans {
                let exported = [span.name] + span.attributes.map { "\($0.key)=\($0.value)" } + span.events
                for text in exported {
                    for secret in secrets where text.localizedCaseInsensitiveContains(secret) {
                        Issue.record("span \(span.name) exports a secret: \(text)")
                    }
                }
            }
            for request in requests {
                #expect(request.parentID == trace.parentID, "\(request.name): a child of the caller's span")
                #expect(request.attributes["http.response.status_code"] != nil, "\(request.name)")
            }
            let names = Set(requests.map(\.name))
            for operation in ["registerNewUser", "loginByNonce", "loginByUsernamePassword", "loginByPIN", "resetForgottenPassword"] {
                #expect(names.contains(operation), "\(operation) among \(names.sorted())")
            }
            #expect(names.contains("/reset/credential"), "a portal route is named by its route: \(names.sorted())")

            let login = try #require(requests.first { $0.name == "loginByUsernamePassword" })
            let children = spans.filter { $0.parentID == login.spanID }
            let childNames = Set(children.map(\.name))
            #expect(childNames.isSuperset(of: ["hash.wait", "hash"]), "the gate's wait and the hash: \(childNames.sorted())")
            #expect(childNames.contains("db.transaction"), "the login's transaction: \(childNames.sorted())")
            #expect(children.filter { $0.name.hasPrefix("db.") }.allSatisfy { $0.attributes["db.system"] != nil })
        }
    }

    /// Admin calls are traced like the wallet's: a server span named by the admin API's operation
    /// id, the route's template (never the user id in the path, nor the query's filters) and the
    /// status; the operator key appears in no span.
    @Test func adminCallsAreSpansNamedByTheirOperation() async throws {
        let recorder = TraceRecorder.shared
        let trace = recorder.watchNewTrace()
        try await withServer(configure: { configuration in
            Self.tracingOn(&configuration)
            AdminAPITests.configure(&configuration)
        }) { app, plain in
            let client = TracedClient(inner: plain, traceparent: trace.header)
            let email = "traced-admin@example.com"
            _ = try await AuthFixture.register(client, email: email)
            let user = try await AdminAPITests.userID(app, email)
            let (_, key) = try await AdminAPITests.key(app, .admin)
            let detail = try await client.call(.get, "/admin/v1/users/\(user)", headers: AdminAPITests.admin(key))
            #expect(detail.status == .ok)
            let events = try await client.call(.get, "/admin/v1/events?userId=\(user)&clientIp=198.51.100.7",
                                               headers: AdminAPITests.admin(key))
            #expect(events.status == .ok)
            let refused = try await client.call(.get, "/admin/v1/users", headers: AdminAPITests.admin(key + "x"))
            #expect(refused.status == .unauthorized)

            let requests = recorder.spans(of: trace.traceID).filter { $0.kind == .server }
            let names = requests.map(\.name)
            #expect(names.contains("getUser") && names.contains("listEvents"), "\(names)")
            for span in recorder.spans(of: trace.traceID) {
                let exported = [span.name] + span.attributes.map { "\($0.key)=\($0.value)" } + span.events
                for text in exported {
                    for secret in [key, user, email, "198.51.100.7"] where text.contains(secret) {
                        Issue.record("span \(span.name) exports \(secret): \(text)")
                    }
                }
            }
            let statuses = requests.compactMap { $0.attributes["http.response.status_code"] }
            #expect(statuses.contains { $0.contains("401") }, "the refused call is a span too, with its status: \(statuses)")
        }
    }

    /// Behind trusted proxies only their `traceparent` counts: a client's own, sampled flag on,
    /// from an address the list does not hold, does not make its request a span of the client's
    /// trace (the request starts a trace of its own); from a listed peer the same header is.
    @Test func aTraceparentCountsOnlyFromATrustedProxy() async throws {
        let recorder = TraceRecorder.shared
        for (proxies, honoured) in [(["10.0.0.0/8"], false), (["127.0.0.1/32", "::1/128"], true)] {
            let trace = recorder.watchNewTrace()
            // Over TCP, so the server knows its peer (127.0.0.1).
            try await withServer(live: true, configure: { configuration in
                Self.tracingOn(&configuration)
                configuration.http.trustedProxies = proxies
            }) { _, plain in
                let client = TracedClient(inner: plain, traceparent: trace.header)
                // An operation no other test here calls, so the spans outside watched traces are this request's.
                let operation = "retrievePasswordConfigurations"
                let before = recorder.serverSpansOutsideWatchedTraces(named: operation)
                let rules = try await client.call(.get, "/v1/enrollment/password-configuration")
                #expect(rules.status == .ok)
                let joined = recorder.spans(of: trace.traceID).filter { $0.kind == .server }
                #expect(joined.isEmpty == !honoured, "trusted proxies \(proxies): \(joined.map(\.name))")
                if !honoured {
                    #expect(recorder.serverSpansOutsideWatchedTraces(named: operation) > before,
                            "the untrusted client's request is still a span, of a trace of its own")
                }
            }
        }
    }

    /// The propagator is handed the trace headers and nothing else: OpenTelemetry's logs, as
    /// `carrier`, whatever it cannot read, and a request's headers hold its credentials. A
    /// request with a bearer token, a cookie and a DPoP proof beside its trace headers lets the
    /// propagator read only `traceparent` and `tracestate`.
    @Test func thePropagatorReadsOnlyTheTraceHeaders() async throws {
        let recorder = TraceRecorder.shared
        let trace = recorder.watchNewTrace()
        try await withServer(configure: Self.tracingOn) { _, plain in
            var headers = appHeaders()
            headers[.authorization] = "Bearer not-a-session-but-a-credential"
            headers[.cookie] = "latchkey_console=not-a-console-session"
            headers[HTTPField.Name("DPoP")!] = "not.a.proof"
            headers[HTTPField.Name("tracestate")!] = "vendor=opaque"
            let questions = try await TracedClient(inner: plain, traceparent: trace.header).call(.get, "/v1/enrollment/mfa-questions", headers: headers)
            #expect(questions.status == .unauthorized, "the bearer token is no session's")
            #expect(recorder.headersReadable(in: trace.traceID) == ["traceparent", "tracestate"])
            #expect(!recorder.spans(of: trace.traceID).filter { $0.kind == .server }.isEmpty)
        }
    }

    /// A `traceparent` that breaks W3C Trace Context's grammar (an upper-case or all-zero parent
    /// id, another version, a bad delimiter) is not read: the request starts a trace of its own
    /// rather than joining the trace the header names.
    @Test func aMalformedTraceparentIsNotRead() async throws {
        let recorder = TraceRecorder.shared
        try await withServer(configure: Self.tracingOn) { _, plain in
            for malformed in [{ (id: String) in "00-\(id)-ABCDEF0123456789-01" }, { "00-\($0)-0000000000000000-01" },
                              { "01-\($0)-abcdef0123456789-01" }, { "00-\($0)-abcdef0123456789-0g" }] {
                let trace = recorder.watchNewTrace()
                let header = malformed(trace.traceID)
                let questions = try await TracedClient(inner: plain, traceparent: header).call(.get, "/v1/enrollment/mfa-questions")
                #expect(questions.status == .ok)
                #expect(recorder.spans(of: trace.traceID).isEmpty, "\(header) was read")
            }
        }
    }

    /// With `telemetry.tracing.enabled` off the server makes no request span, even for a caller
    /// that sends a `traceparent`.
    @Test func tracingOffMakesNoSpan() async throws {
        let recorder = TraceRecorder.shared
        let trace = recorder.watchNewTrace()
        try await withServer { app, plain in
            let client = TracedClient(inner: plain, traceparent: trace.header)
            _ = try await AuthFixture.register(client, email: "untraced@example.com")
            #expect(recorder.spans(of: trace.traceID).isEmpty)
        }
    }

    /// The settings are checked with the key named; a build without the exporter refuses to
    /// turn tracing on.
    @Test func theSettingsAreChecked() throws {
        for (yaml, key) in [("telemetry: { tracing: { samplingRatio: 1.5 } }", "telemetry.tracing.samplingRatio"),
                            ("telemetry: { tracing: { endpoint: 'collector:4318' } }", "telemetry.tracing.endpoint"),
                            ("telemetry: { tracing: { serviceName: ' ' } }", "telemetry.tracing.serviceName"),
                            ("telemetry: { tracing: { sampling: 1 } }", "telemetry.tracing.sampling")] {
            #expect(throws: ConfigurationError.self, "\(yaml)") { try ServerConfiguration.parse(yaml: yaml) }
            do { _ = try ServerConfiguration.parse(yaml: yaml) } catch let error as ConfigurationError { #expect(error.key == key) }
        }
        let on = try ServerConfiguration.parse(yaml: "telemetry: { tracing: { enabled: true, samplingRatio: 0.01 } }")
        #expect(on.telemetry.tracing.samplingRatio == 0.01)
        if TracingSetup.exporterCompiledIn {
            try TracingSetup.check(on.telemetry.tracing)
        } else {
            do {
                try TracingSetup.check(on.telemetry.tracing)
                Issue.record("a build without the exporter accepts tracing")
            } catch let error as ConfigurationError {
                #expect(error.key == "telemetry.tracing.enabled" && error.message.contains("OTLPExport"), "\(error)")
            }
        }
    }

    /// The value of a link's `token` query parameter.
    static func token(in path: String) throws -> String {
        let query = try #require(URLComponents(string: path)?.queryItems)
        return try #require(query.first { $0.name == "token" }?.value)
    }
}
