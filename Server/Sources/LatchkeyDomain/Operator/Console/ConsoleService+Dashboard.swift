import Foundation

/// The console's dashboard: counts of the trail's events by hour or by day. Not an event of its
/// own: the admin API has no such read, and the dashboard names no user.
extension ConsoleService {
    /// The dashboard's counts by `bucket` seconds from `since` (`ConsoleStore.dashboardCounts`).
    /// Throws what the database throws.
    public func dashboard(since: Date, bucket: Int) async throws -> [DashboardBucket] {
        try await store.dashboardCounts(since: since, bucket: bucket, now: now())
    }
}
