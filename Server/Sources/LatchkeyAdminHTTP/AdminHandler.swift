import Foundation
import LatchkeyAdminAPI
import LatchkeyCore
import LatchkeyDomain

/// The admin document's operations, as thin calls into `AdminService` for the call's operator key.
struct AdminHandler: APIProtocol {
    let admin: AdminService
    /// Users a page holds unless `pageSize` says otherwise.
    static let defaultPageSize = 50

    /// The key `AdminEdgeMiddleware` authenticated and its client (always set behind it).
    private var call: OperatorCall {
        get throws {
            guard let call = AdminCaller.call else { throw DomainError(.operatorKeyInvalid, field: "Authorization") }
            return call
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
        let (users, next) = try await admin.users(lookups.first, state: state, after: cursor, limit: pageSize, for: try call)
        let token = next.map(PageToken.token)
        // The next page's address keeps the filter and the size.
        let link = token.map { token in
            let parameters = [state.map { "state=\($0.rawValue)" }, "pageSize=\(pageSize)", "pageToken=\(token)"].compactMap { $0 }
            return "</admin/v1/users?\(parameters.joined(separator: "&"))>; rel=\"next\""
        }
        return .ok(.init(headers: .init(link: link), body: .json(.init(users: users.map(Self.summary), nextPageToken: token))))
    }

    func listEvents(_ input: Operations.ListEvents.Input) async throws -> Operations.ListEvents.Output {
        let query = input.query
        let pageSize = query.pageSize ?? Self.defaultPageSize
        guard (1...200).contains(pageSize) else { throw DomainError(.invalidField, message: "pageSize is 1 to 200.", field: "pageSize") }
        var type: AuditEventType?
        if let name = query._type {
            guard let known = AuditEventType(rawValue: name) else {
                throw DomainError(.invalidField, message: "type is not an event type (docs/security.md lists them).", field: "type")
            }
            type = known
        }
        if let since = query.since, let until = query.until, since >= until {
            throw DomainError(.invalidField, message: "since must be before until.", field: "since")
        }
        let filter = AuditEventFilter(userID: query.userId, type: type, outcome: query.outcome.flatMap { AuditOutcome(rawValue: $0.rawValue) },
                                      clientIP: query.clientIp, since: query.since, until: query.until)
        let before = try query.pageToken.map(PageToken.eventID)
        let (events, next) = try await admin.events(filter, before: before, limit: pageSize, for: try call)
        let token = next.map(PageToken.token(event:))
        let link = token.map { token in
            var parameters = URLComponents(string: "/admin/v1/events")!
            parameters.queryItems = [("userId", query.userId), ("type", query._type), ("outcome", query.outcome?.rawValue),
                                     ("clientIp", query.clientIp), ("since", query.since.map(Self.timestamp)),
                                     ("until", query.until.map(Self.timestamp)), ("pageSize", "\(pageSize)"), ("pageToken", token)]
                .compactMap { name, value in value.map { URLQueryItem(name: name, value: $0) } }
            // `+` of a time zone and `:` are sent encoded, so the link reads back as it was asked.
            return "<\(parameters.percentEncodedPath)?\(Self.encoded(parameters.queryItems ?? []))>; rel=\"next\""
        }
        return .ok(.init(headers: .init(link: link), body: .json(.init(events: events.map(Self.wire), nextPageToken: token))))
    }

    func getUser(_ input: Operations.GetUser.Input) async throws -> Operations.GetUser.Output {
        .ok(.init(body: .json(Self.wire(try await admin.detail(userID: input.path.userId, for: try call)))))
    }

    func lockUser(_ input: Operations.LockUser.Input) async throws -> Operations.LockUser.Output {
        try await admin.lock(userID: input.path.userId, for: try call)
        return .noContent(.init())
    }

    func unlockUser(_ input: Operations.UnlockUser.Input) async throws -> Operations.UnlockUser.Output {
        try await admin.unlock(userID: input.path.userId, for: try call)
        return .noContent(.init())
    }

    func endUserSessions(_ input: Operations.EndUserSessions.Input) async throws -> Operations.EndUserSessions.Output {
        try await admin.endSessions(userID: input.path.userId, for: try call)
        return .noContent(.init())
    }
}

/// A page's position as an opaque token: base64url of `<created_at seconds>.<user id>` (users) or
/// `e.<event id>` (events).
enum PageToken {
    static func token(event id: String) -> String { Data("e.\(id)".utf8).base64URL }

    /// Throws `DomainError(.invalidField)` (field `pageToken`) for a token this server did not make.
    static func eventID(_ token: String) throws -> String {
        guard let data = Data(base64URL: token), let text = String(data: data, encoding: .utf8), text.hasPrefix("e."),
              text.count <= 80, text.dropFirst(2).allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }),
              text.count > 2 else {
            throw DomainError(.invalidField, message: "pageToken is not a page token of this API.", field: "pageToken")
        }
        return String(text.dropFirst(2))
    }

    static func token(_ cursor: UserPageCursor) -> String {
        Data("\(Int(cursor.createdAt.timeIntervalSince1970)).\(cursor.id)".utf8).base64URL
    }

    /// Throws `DomainError(.invalidField)` (field `pageToken`) for a token this server did not make.
    static func cursor(_ token: String) throws -> UserPageCursor {
        let invalid = DomainError(.invalidField, message: "pageToken is not a page token of this API.", field: "pageToken")
        // Bounded: a time past any user's creation would overflow where it becomes a database value.
        guard let data = Data(base64URL: token), let text = String(data: data, encoding: .utf8),
              let dot = text.firstIndex(of: "."), let seconds = Int(text[..<dot]), (0...100_000_000_000).contains(seconds),
              case let id = text[text.index(after: dot)...], !id.isEmpty, id.count <= 64,
              id.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") })
        else { throw invalid }
        return UserPageCursor(createdAt: Date(timeIntervalSince1970: TimeInterval(seconds)), id: String(text[text.index(after: dot)...]))
    }
}
