import Foundation
import LatchkeyDomain

extension SQLStore {
    public func users(issuer: String, state: UserStateFilter?, after cursor: UserPageCursor?, limit: Int) async throws -> [UserRecord] {
        var sql = "SELECT * FROM users WHERE issuer = $1"
        var binds: [SQLValue] = [.text(issuer)]
        switch state {
        case .active: sql += " AND status = 'active' AND locked = 0"
        case .locked: sql += " AND locked = 1"
        case .deactivated: sql += " AND status <> 'active'"
        case .unverified: sql += " AND email_verified = 0"
        case nil: break
        }
        if let cursor {
            sql += " AND (created_at < $2 OR (created_at = $3 AND id < $4))"
            binds += [cursor.createdAt.epochSeconds, cursor.createdAt.epochSeconds, .text(cursor.id)]
        }
        binds.append(.integer(Int64(limit)))
        sql += " ORDER BY created_at DESC, id DESC LIMIT $\(binds.count)"
        return try await engine.read(sql, binds).map { try UserRecord(row: $0) }
    }

    public func liveSessions(userID: String, now: Date, idleBefore: Date, limit: Int) async throws -> [SessionRecord] {
        try await engine.read("""
            SELECT * FROM sessions WHERE user_id = $1 AND revoked_at IS NULL AND expires_at > $2 AND last_seen_at > $3
            ORDER BY last_seen_at DESC, digest LIMIT $4
            """, [.text(userID), now.epochSeconds, idleBefore.epochSeconds, .integer(Int64(limit))]).map { try SessionRecord(row: $0) }
    }

    public func unlinkedLockout(userID: String, now: Date) async throws -> Date? {
        try await engine.read("SELECT locked_until FROM unlinked_attempts WHERE user_id = $1 AND locked_until > $2",
                              [.text(userID), now.epochSeconds]).first.map { try $0.date("locked_until") }
    }
}
