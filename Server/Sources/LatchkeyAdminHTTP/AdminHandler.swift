import Foundation
import LatchkeyAdminAPI
import LatchkeyCore
import LatchkeyDomain

/// The admin document's operations, as thin calls into `AdminService` for the call's operator key.
struct AdminHandler: APIProtocol {
    let admin: AdminService
    /// Users a page holds unless `pageSize` says otherwise.
    static let defaultPageSize = 50

    /// The key `AdminEdgeMiddleware` authenticated (always set behind it).
    private var key: OperatorKeyRecord {
        get throws {
            guard let key = AdminCaller.key else { throw DomainError(.operatorKeyInvalid, field: "Authorization") }
            return key
        }
    }

    func listUsers(_ input: Operations.ListUsers.Input) async throws -> Operations.ListUsers.Output {
        let query = input.query
        let lookups: [AdminService.Lookup] = [
            query.email.map(AdminService.Lookup.email), query.phone.map(AdminService.Lookup.phone),
            query.userId.map(AdminService.Lookup.userID), query.thumbprint.map(AdminService.Lookup.thumbprint),
        ].compactMap { $0 }
        guard lookups.count <= 1 else {
            throw DomainError(.invalidField, message: "Give at most one of email, phone, userId and thumbprint.", field: "email")
        }
        guard lookups.isEmpty || (query.state == nil && query.pageToken == nil) else {
            throw DomainError(.invalidField, message: "An exact lookup takes no state or pageToken.", field: "state")
        }
        let pageSize = query.pageSize ?? Self.defaultPageSize
        guard (1...200).contains(pageSize) else { throw DomainError(.invalidField, message: "pageSize is 1 to 200.", field: "pageSize") }
        let cursor = try query.pageToken.map(PageToken.cursor)
        let state = query.state.flatMap { UserStateFilter(rawValue: $0.rawValue) }
        let (users, next) = try await admin.users(lookups.first, state: state, after: cursor, limit: pageSize, for: try key)
        let token = next.map(PageToken.token)
        // The next page's address keeps the filter and the size.
        let link = token.map { token in
            let parameters = [state.map { "state=\($0.rawValue)" }, "pageSize=\(pageSize)", "pageToken=\(token)"].compactMap { $0 }
            return "</admin/v1/users?\(parameters.joined(separator: "&"))>; rel=\"next\""
        }
        return .ok(.init(headers: .init(link: link), body: .json(.init(users: users.map(Self.summary), nextPageToken: token))))
    }

    func getUser(_ input: Operations.GetUser.Input) async throws -> Operations.GetUser.Output {
        .ok(.init(body: .json(Self.wire(try await admin.detail(userID: input.path.userId, for: try key)))))
    }

    func lockUser(_ input: Operations.LockUser.Input) async throws -> Operations.LockUser.Output {
        try await admin.lock(userID: input.path.userId, for: try key)
        return .noContent(.init())
    }

    func unlockUser(_ input: Operations.UnlockUser.Input) async throws -> Operations.UnlockUser.Output {
        try await admin.unlock(userID: input.path.userId, for: try key)
        return .noContent(.init())
    }

    func endUserSessions(_ input: Operations.EndUserSessions.Input) async throws -> Operations.EndUserSessions.Output {
        try await admin.endSessions(userID: input.path.userId, for: try key)
        return .noContent(.init())
    }
}

/// A page's position as an opaque token: base64url of `<created_at seconds>.<user id>`.
enum PageToken {
    static func token(_ cursor: UserPageCursor) -> String {
        Data("\(Int(cursor.createdAt.timeIntervalSince1970)).\(cursor.id)".utf8).base64URL
    }

    /// Throws `DomainError(.invalidField)` (field `pageToken`) for a token this server did not make.
    static func cursor(_ token: String) throws -> UserPageCursor {
        let invalid = DomainError(.invalidField, message: "pageToken is not a page token of this API.", field: "pageToken")
        guard let data = Data(base64URL: token), let text = String(data: data, encoding: .utf8),
              let dot = text.firstIndex(of: "."), let seconds = Int(text[..<dot]), !text[text.index(after: dot)...].isEmpty
        else { throw invalid }
        return UserPageCursor(createdAt: Date(timeIntervalSince1970: TimeInterval(seconds)), id: String(text[text.index(after: dot)...]))
    }
}
