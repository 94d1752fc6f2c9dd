import Foundation
import LatchkeyDomain
import LatchkeySQL
import LatchkeyTestSupport
import Testing

/// The console dashboard's counts, on both engines: each series from the trail, the
/// courier and the gate's hourly rows; an hour that is over is counted once and kept, so a week's
/// view reads a few rows per hour instead of every event of the week.
@Suite struct DashboardCountsTests {
    static func event(_ type: AuditEventType, _ outcome: AuditOutcome = .success, at time: Date,
                      details: [String: String] = [:]) -> AuditEvent {
        AuditEvent(id: AuditEvent.newID(at: time), occurredAt: time, type: type, outcome: outcome, userID: nil, actor: .user,
                   details: details)
    }

    @Test(arguments: TestEnvironment.engines)
    func hoursAreCountedOnceTheyAreOver(engine: String) async throws {
        try await TestEnvironment.withFreshStore(engine) { store in
            let hour = 1_900_000_800.0  // the start of an hour
            let now = Date(timeIntervalSince1970: hour + 3 * 3600 + 1200)  // 20 minutes into the fourth hour: the first two are settled
            let early = Date(timeIntervalSince1970: hour + 60), late = Date(timeIntervalSince1970: hour + 3 * 3600 + 60)
            try await store.appendAuditEvents([
                Self.event(.loginSucceeded, at: early), Self.event(.loginSucceeded, at: early),
                Self.event(.loginFailed, .failure, at: early), Self.event(.walletLocked, .failure, at: early),
                Self.event(.userRegistered, at: early, details: ["method": "phone"]), Self.event(.userRegistered, at: early),
                Self.event(.passwordChanged, at: early),  // not a series
                Self.event(.loginSucceeded, at: late),
            ])
            _ = try await store.add(ShedRecorder.keyPrefix + String(Int(hour)), count: 7, window: 8 * 86_400, now: early)
            let since = Date(timeIntervalSince1970: hour)
            let first = try await store.dashboardCounts(since: since, bucket: 3600, now: now)
            #expect(first.map(\.start) == [early, late].map { Date(timeIntervalSince1970: ($0.timeIntervalSince1970 / 3600).rounded(.down) * 3600) })
            #expect(first.first?.counts == ["logins_succeeded": 2, "logins_failed": 1, "lockouts": 1, "phone_signups": 1,
                                            "registrations": 1, "shed": 7], "\(first)")
            #expect(first.last?.counts == ["logins_succeeded": 1], "the hour under way is counted as it is")

            // An event written into the first hour after it was counted (it could not be, an hour
            // past its end) is not counted again: the hour's kept counts are read back.
            // The hour under way keeps counting.
            try await store.appendAuditEvents([Self.event(.loginSucceeded, at: early), Self.event(.loginSucceeded, at: late)])
            let second = try await store.dashboardCounts(since: since, bucket: 3600, now: now)
            #expect(second.first?.counts["logins_succeeded"] == 2, "the first hour is read from its kept counts")
            #expect(second.last?.counts["logins_succeeded"] == 2, "the hour under way is counted again")

            // By day: the hours add up.
            let daily = try await store.dashboardCounts(since: Date(timeIntervalSince1970: (hour / 86_400).rounded(.down) * 86_400),
                                                        bucket: 86_400, now: now)
            #expect(daily.count == 1 && daily[0].counts["logins_succeeded"] == 4 && daily[0].counts["shed"] == 7, "\(daily)")
        }
    }
}
