import Foundation
import HTTPTypes
import HummingbirdTesting
import LatchkeyAPI
import LatchkeyCore
import LatchkeyDomain
import LatchkeyServer
import LatchkeyTestSupport
import Testing

/// The app context's `collectStatistics`, `deviceTypeId`, `applicationVersion` and
/// `paydiantSDKVersion` on the server.
@Suite struct LoginStatisticsTests {
    static func batch(_ entries: [[String: Any]], id: String = UUID().uuidString) -> [String: Any] {
        ["batchId": id, "statistics": entries]
    }
    nonisolated(unsafe) static let pins: [String: Any] = ["method": "pin", "successes": 3, "mfaPrompts": 0,
                                      "failures": ["401": 1, "network": 1], "totalLatencyMilliseconds": 1500,
                                      "maximumLatencyMilliseconds": 700]

    /// Batches from one device add up per method and day in the database, the sums reach
    /// `/metrics`, and the device list shows what the device runs.
    @Test(arguments: TestEnvironment.engines)
    func batchesAddUpPerDeviceAndDay(engine: String) async throws {
        try await withServer(engine: engine) { app, client in
            let session = try await AuthFixture.nonceSession(app, client)
            var headers = appHeaders(session: session)
            headers[HTTPField.Name("X-Device-Type")!] = "iPad"
            headers[HTTPField.Name("X-App-Version")!] = "26.11.0.0i"
            headers[HTTPField.Name("X-SDK-Version")!] = "1.23.0"
            let relogin = try await client.call(.post, "/v1/auth/login/password", headers: headers,
                                                body: ["username": "ada@example.com", "password": AuthFixture.password])
            let token = try #require(relogin.login?.sessionToken, "\(relogin.json)")
            headers[.authorization] = "Bearer \(token)"

            let first = try await client.call(.post, "/v1/login-statistics", headers: headers, body: Self.batch([Self.pins], id: "batch-1"))
            #expect(first.status == .noContent, "\(first.json)")
            let again = try await client.call(.post, "/v1/login-statistics", headers: headers, body: Self.batch([Self.pins], id: "batch-1"))
            #expect(again.status == .noContent, "a batch sent again is taken, and counted once: \(again.json)")
            let password: [String: Any] = ["method": "password", "successes": 1, "mfaPrompts": 1, "failures": [:],
                                           "totalLatencyMilliseconds": 900, "maximumLatencyMilliseconds": 800]
            // The device is the session's: a header naming another device changes nothing.
            var other = headers
            other[HTTPField.Name("X-Device-ID")!] = "device-2"
            let day = LoginStatisticsService.day(of: Date())
            let second = try await client.call(.post, "/v1/login-statistics", headers: other, body: Self.batch([Self.pins, password]))
            #expect(second.status == .noContent, "\(second.json)")

            let user = try #require(try await app.store.user(issuer: "default", emailNormalized: "ada@example.com"))
            let stored = try await app.store.loginStatistics(userID: user.id, deviceID: "device-1", sinceDay: 0)
            let pin = try #require(stored.first { $0.statistics.method == .pin })
            #expect(stored.count == 2 && pin.statistics.attempts == 10 && pin.statistics.successes == 6
                    && pin.statistics.failures == ["401": 2, "network": 2] && pin.statistics.totalLatencyMilliseconds == 3000
                    && pin.statistics.maximumLatencyMilliseconds == 700, "\(stored)")
            #expect([day, LoginStatisticsService.day(of: Date())].contains(pin.day))
            #expect(try await app.store.loginStatistics(userID: user.id, deviceID: "device-2", sinceDay: 0).isEmpty)

            let metrics = try await client.execute(uri: "/metrics", method: .get) { String(buffer: $0.body) }
            #expect(metrics.contains(#"latchkey_app_logins_total{method="pin",outcome="failure",code="401"}"#)
                    || metrics.contains(#"latchkey_app_logins_total{code="401",method="pin",outcome="failure"}"#), "\(metrics.prefix(400))")
            #expect(metrics.contains("latchkey_app_login_latency_milliseconds_total"))

            let devices = try await client.call(.get, "/v1/devices", headers: headers).decoded(Components.Schemas.DeviceList.self)
            let device = try #require(devices?.devices.first)
            #expect(device.deviceType == "iPad" && device.applicationVersion == "26.11.0.0i" && device.sdkVersion == "1.23.0")

            // Sums stop at the cap instead of overflowing.
            let huge = LoginStatistics(method: .federated, successes: LoginStatistics.sumCap, failures: ["500": LoginStatistics.sumCap],
                                       totalLatencyMilliseconds: LoginStatistics.sumCap)
            for id in ["huge-1", "huge-2"] {
                #expect(try await app.store.addLoginStatistics(userID: user.id, deviceID: "device-1", day: pin.day, batchID: id, [huge]))
            }
            let capped = try #require(try await app.store.loginStatistics(userID: user.id, deviceID: "device-1", sinceDay: pin.day)
                .first { $0.statistics.method == .federated })
            #expect(capped.statistics.successes == LoginStatistics.sumCap && capped.statistics.failures["500"] == LoginStatistics.sumCap)

            // Days past the retention are deleted from both tables; later ones stay. Batch ids go
            // on their own (two days): a batch id kept refuses the same batch, a purged one not.
            #expect(try await app.store.addLoginStatistics(userID: user.id, deviceID: "device-1", day: pin.day - 100, batchID: "old",
                                                           [LoginStatistics(method: .nonce, failures: ["410": 1])]))
            #expect(try await app.store.purgeLoginStatistics(beforeDay: pin.day - 90) == 1)
            #expect(try await app.store.purgeLoginStatistics(beforeDay: pin.day - 90) == 0, "nothing old is left in either table")
            #expect(try await app.store.addLoginStatistics(userID: user.id, deviceID: "device-1", day: pin.day - 100, batchID: "old",
                                                           [LoginStatistics(method: .nonce)]) == false, "the batch id is kept")
            #expect(try await app.store.purgeLoginStatisticsBatches(beforeDay: pin.day - 2) == 1)
            #expect(try await app.store.purgeLoginStatisticsBatches(beforeDay: pin.day - 2) == 0)
            #expect(try await app.store.addLoginStatistics(userID: user.id, deviceID: "device-1", day: pin.day - 100, batchID: "old",
                                                           [LoginStatistics(method: .nonce, failures: ["410": 1])]))
            #expect(try await app.store.purgeLoginStatistics(beforeDay: pin.day - 90) == 1)
            #expect(try await app.store.loginStatistics(userID: user.id, deviceID: nil, sinceDay: 0).count == 3)
        }
    }

    /// A batch or counts out of their bounds are refused naming the property, and
    /// nothing of the batch is kept; the statistics need a session; an issuer that turned them
    /// off answers 404; the version headers are short and printable.
    @Test(arguments: TestEnvironment.engines)
    func badBatchesAreRefusedNamingTheField(engine: String) async throws {
        try await withServer(engine: engine) { app, client in
            let session = try await AuthFixture.nonceSession(app, client)
            let headers = appHeaders(session: session)
            func submit(_ change: (inout [String: Any]) -> Void) async throws -> JSONAnswer {
                var entry = Self.pins
                change(&entry)
                return try await client.call(.post, "/v1/login-statistics", headers: headers, body: Self.batch([Self.pins, entry]))
            }
            let empty = try await client.call(.post, "/v1/login-statistics", headers: headers, body: Self.batch([]))
            #expect(empty.status == .badRequest && empty.errorField == "statistics", "\(empty.json)")
            let code = try await submit { $0["failures"] = ["401": 1, "<script>": 1] }
            #expect(code.status == .badRequest && code.errorField == "statistics[1].failures", "\(code.json)")
            let latency = try await submit { $0["maximumLatencyMilliseconds"] = 9_000_000 }
            #expect(latency.status == .badRequest && latency.errorField == "statistics[1].maximumLatencyMilliseconds", "\(latency.json)")
            let negative = try await submit { $0["failures"] = ["401": -1, "network": 3] }
            #expect(negative.status == .badRequest && negative.errorField == "statistics[1].failures", "\(negative.json)")
            let huge = try await submit { $0["failures"] = ["401": Int.max, "network": Int.max]; $0["successes"] = Int.max }
            #expect(huge.status == .badRequest && huge.errorField?.hasPrefix("statistics[1].") == true, "no overflow: \(huge.json)")
            let method = try await submit { $0["method"] = "telepathy" }
            #expect(method.status == .badRequest, "\(method.json)")
            let user = try #require(try await app.store.user(issuer: "default", emailNormalized: "ada@example.com"))
            let badID = try await client.call(.post, "/v1/login-statistics", headers: headers, body: Self.batch([Self.pins], id: "a b"))
            #expect(badID.status == .badRequest && badID.errorField == "batchId", "\(badID.json)")
            #expect(try await app.store.loginStatistics(userID: user.id, deviceID: nil, sinceDay: 0).isEmpty, "no half of a batch")

            let anonymous = try await client.call(.post, "/v1/login-statistics", body: Self.batch([Self.pins]))
            #expect(anonymous.status == .unauthorized, "\(anonymous.json)")

            for (name, value) in [("X-App-Version", String(repeating: "9", count: 65)), ("X-Device-Type", "iPhone\t<b>"),
                                  ("X-SDK-Version", "1.0-β"), ("X-Device-Type", "Zoë's iPhone"), ("X-App-Version", ""),
                                  ("X-Device-ID", "device\tspoof")] {
                var bad = headers
                bad[HTTPField.Name(name)!] = value
                let refused = try await client.call(.get, "/v1/devices", headers: bad)
                #expect(refused.status == .badRequest && refused.errorField == name, "\(name): \(refused.json)")
            }
        }
        try await withServer(configure: { $0.issuer.statistics.enabled = false }) { app, client in
            let session = try await AuthFixture.nonceSession(app, client)
            let off = try await client.call(.post, "/v1/login-statistics", headers: appHeaders(session: session),
                                            body: Self.batch([Self.pins]))
            #expect(off.status == .notFound && off.errorCode == 404, "\(off.json)")
        }
    }
}
