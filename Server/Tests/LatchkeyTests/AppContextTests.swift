import Foundation
import Latchkey
import LatchkeyCore
import LatchkeyDomain
import LatchkeyServer
import OpenAPIURLSession
import Synchronization
import Testing

/// Collects the SDK's log entries, as an app's log handler would.
final class CollectingLogHandler: LatchkeyLogHandler {
    let entries = Mutex<[LatchkeyLogEntry]>([])
    func log(_ entry: LatchkeyLogEntry) { entries.withLock { $0.append(entry) } }
    var all: [LatchkeyLogEntry] { entries.withLock { $0 } }
}

/// A location provider that counts how often it was asked.
final class FixedLocation: LatchkeyLocationProvider {
    let asked = Mutex(0)
    func currentLocation() async -> LatchkeyLocation? {
        asked.withLock { $0 += 1 }
        return LatchkeyLocation(latitude: 38.7223, longitude: -9.1393, horizontalAccuracy: 35)
    }
}

/// Through the SDK, the rest of `PDPaydiantContext` — `collectStatistics`,
/// `locationLoggingEnabled`, `paydiantSDKVersion`, `deviceTypeId`, `applicationVersion`.
@Suite struct AppContextTests {
    /// With `collectStatistics` on, logins are counted by method and outcome, survive a relaunch
    /// (they wait in the SDK's storage), and a batch reaches the server, stored for this device.
    @Test func loginStatisticsAreCountedAndSent() async throws {
        let storage = MemoryCredentialStorage()
        try await withLiveServer(storage: storage) { sdk, app in
            var context = sdk.context
            context.collectStatistics = true
            context.statisticsBatchSize = 100
            let counting = testClient(context: context, storage: storage)
            let registered = try await counting.enrollment.registerNewUser(sampleProfile())
            try await AuthenticationClientTests.verifyEmail(app, server: context.serverURL)
            _ = try await counting.authentication.loginByNonce(registered.nonce)
            await #expect(throws: LatchkeyError.self) { _ = try await counting.authentication.loginByPIN("000000") }
            _ = try await counting.authentication.loginByPIN("314159")

            // A relaunch: another client on the same storage finds the counts waiting.
            let relaunched = testClient(context: context, storage: storage)
            let waiting = await relaunched.waitingLoginStatistics()
            let pin = try #require(waiting.first { $0.method == .pin })
            #expect(pin.attempts == 2 && pin.successes == 1 && pin.failures == ["401": 1], "\(waiting)")
            #expect(waiting.first { $0.method == .nonce }?.successes == 1)
            #expect(try await relaunched.sendLoginStatistics() == 3)
            #expect(await relaunched.waitingLoginStatistics().isEmpty)
            #expect(try await relaunched.sendLoginStatistics() == 0)

            let user = try #require(try await app.store.user(issuer: "default", emailNormalized: "grace@example.com"))
            let stored = try await app.store.loginStatistics(userID: user.id, deviceID: "jkt:" + (try await relaunched.deviceThumbprint()),
                                                            sinceDay: 0)
            #expect(stored.first { $0.statistics.method == .pin }?.statistics.failures == ["401": 1], "\(stored)")

            // The device list shows what this device runs.
            let device = try #require(try await relaunched.authentication.devices().first { $0.isCurrent })
            #expect(device.sdkVersion == LatchkeyContext.sdkVersion && device.applicationVersion == context.applicationVersion
                    && device.deviceType == context.deviceTypeID && context.paydiantSDKVersion == LatchkeyContext.sdkVersion)
        }
    }

    /// A full batch goes by itself after a login; off (the default), nothing is counted or sent.
    @Test func aFullBatchIsSentAfterALoginAndNothingWhenOff() async throws {
        let storage = MemoryCredentialStorage()
        try await withLiveServer(storage: storage) { sdk, app in
            let registered = try await sdk.enrollment.registerNewUser(sampleProfile())
            try await AuthenticationClientTests.verifyEmail(app, server: sdk.context.serverURL)
            _ = try await sdk.authentication.loginByNonce(registered.nonce)
            _ = try await sdk.authentication.loginByPIN("314159")
            #expect(await sdk.waitingLoginStatistics().isEmpty, "collectStatistics is off by default")
            let user = try #require(try await app.store.user(issuer: "default", emailNormalized: "grace@example.com"))
            #expect(try await app.store.loginStatistics(userID: user.id, deviceID: nil, sinceDay: 0).isEmpty)

            var context = sdk.context
            context.collectStatistics = true
            context.statisticsBatchSize = 2
            let network = RecordingTransport()
            let counting = testClient(context: context, transport: network, storage: storage)
            _ = try await counting.authentication.loginByUsernamePassword(username: "grace@example.com", password: "cobol-rules-1959")
            #expect(await counting.waitingLoginStatistics().map(\.attempts) == [1], "one login is not a batch")
            _ = try await counting.authentication.loginByUsernamePassword(username: "grace@example.com", password: "cobol-rules-1959")
            var stored: [DailyLoginStatistics] = []
            for _ in 0..<50 where stored.isEmpty {
                try await Task.sleep(for: .milliseconds(100))
                stored = try await app.store.loginStatistics(userID: user.id, deviceID: nil, sinceDay: 0)
            }
            #expect(stored.map(\.statistics.attempts) == [2], "\(stored)")
            #expect(network.all.components(separatedBy: "batchId").count - 1 == 1, "one batch was sent, after the second login")
            #expect(await counting.waitingLoginStatistics().isEmpty)
        }
    }

    /// The SDK's log entries go to the app's handler, never with a credential; they carry the
    /// app's coordinates only with `locationLoggingEnabled`, and without it the provider is
    /// never asked.
    @Test func logEntriesCarryTheLocationOnlyWhenEnabled() async throws {
        try await withLiveServer { sdk, app in
            let registered = try await sdk.enrollment.registerNewUser(sampleProfile())
            try await AuthenticationClientTests.verifyEmail(app, server: sdk.context.serverURL)
            _ = try await sdk.authentication.loginByNonce(registered.nonce)

            let (quiet, quietPlace) = (CollectingLogHandler(), FixedLocation())
            let unlocated = LatchkeyClient(context: sdk.context, storage: MemoryCredentialStorage(), reinstall: .off,
                                           logHandler: quiet, locationProvider: quietPlace)
            _ = try? await unlocated.authentication.loginByPIN("314159")
            try await Self.waitFor { quiet.all.contains { $0.operation == "login" } }
            #expect(!quiet.all.isEmpty && quiet.all.allSatisfy { $0.location == nil })
            #expect(quietPlace.asked.withLock { $0 } == 0, "the provider is not asked when location logging is off")

            var context = sdk.context
            context.locationLoggingEnabled = true
            let (handler, place) = (CollectingLogHandler(), FixedLocation())
            let located = LatchkeyClient(context: context, storage: MemoryCredentialStorage(), reinstall: .off,
                                         logHandler: handler, locationProvider: place)
            _ = try? await located.authentication.loginByUsernamePassword(username: "grace@example.com", password: "cobol-rules-1959")
            try await Self.waitFor { handler.all.contains { $0.operation == "login" } }
            let entries = handler.all
            #expect(entries.contains { $0.operation == "loginByUsernamePassword" && $0.message.contains("200") }, "\(entries.map(\.message))")
            #expect(entries.contains { $0.operation == "login" && $0.message.contains("password") })
            #expect(entries.allSatisfy { $0.location == LatchkeyLocation(latitude: 38.7223, longitude: -9.1393, horizontalAccuracy: 35) })
            for entry in entries + quiet.all {
                #expect(!entry.message.contains("cobol-rules-1959") && !entry.message.contains("314159"))
            }
        }
    }

    /// Log entries reach the handler from the SDK's own task: waits (up to 5 s) until `condition`.
    static func waitFor(_ condition: () -> Bool) async throws {
        for _ in 0..<100 where !condition() { try await Task.sleep(for: .milliseconds(50)) }
        #expect(condition(), "the handler got the entries")
    }
}
