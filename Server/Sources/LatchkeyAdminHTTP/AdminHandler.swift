import Foundation
import LatchkeyAdminAPI
import LatchkeyCore
import LatchkeyDomain

/// The admin document's operations, as thin calls into the operator services for the call's operator key.
struct AdminHandler: APIProtocol {
    let operators: OperatorServices
    /// The largest import body (`admin.importMaxBytes`).
    let importMaxBytes: Int
    /// The page size `sent`, or the `pageSize` default `operation`'s document declares.
    static func pageSize(_ sent: Int?, of operation: AdminOperation) -> Int {
        sent ?? AdminRoute.of(operation).queryRules["pageSize"]?.integerDefault ?? 50
    }

    /// The key `AdminEdgeMiddleware` authenticated and its client (always set behind it).
    var call: OperatorCall {
        get throws {
            guard let call = AdminCaller.call else { throw DomainError(.operatorKeyInvalid, field: "Authorization") }
            return call
        }
    }

    func listUsers(_ input: Operations.ListUsers.Input) async throws -> Operations.ListUsers.Output {
        let query = input.query
        let lookups: [UserAdministration.Lookup] = [
            query.email.map(UserAdministration.Lookup.email), query.phone.map(UserAdministration.Lookup.phone),
            query.userId.map(UserAdministration.Lookup.userID), query.thumbprint.map(UserAdministration.Lookup.thumbprint),
            query.externalId.map(UserAdministration.Lookup.externalID),
        ].compactMap { $0 }
        let pageSize = Self.pageSize(query.pageSize, of: .listUsers)
        if let prefix = query.emailPrefix, lookups.isEmpty {
            return try await usersByPrefix(prefix, query: query, pageSize: pageSize)
        }
        // A lookup answers one page: its token does not apply.
        // A token of the prefix search's form does not apply to this listing, as a token does
        // not apply to a lookup: every token the document allows is answered.
        let cursor = lookups.isEmpty ? try query.pageToken.flatMap { PageToken.isEmail($0) ? nil : $0 }.map(PageToken.cursor) : nil
        let state = query.state.flatMap { UserStateFilter(rawValue: $0.rawValue) }
        let (users, next) = try await operators.users.users(lookups, emailPrefix: query.emailPrefix, state: state, after: cursor, limit: pageSize,
                                                  for: try call)
        let token = next.map(PageToken.token)
        // The next page's address keeps the filter and the size.
        let link = token.map { token in
            let parameters = [state.map { "state=\($0.rawValue)" }, "pageSize=\(pageSize)", "pageToken=\(token)"].compactMap { $0 }
            return "</admin/v1/users?\(parameters.joined(separator: "&"))>; rel=\"next\""
        }
        return .ok(.init(headers: .init(link: link), body: .json(.init(users: users.map(Self.summary), nextPageToken: token))))
    }

    private func usersByPrefix(_ prefix: String, query: Operations.ListUsers.Input.Query,
                               pageSize: Int) async throws -> Operations.ListUsers.Output {
        let state = query.state.flatMap { UserStateFilter(rawValue: $0.rawValue) }
        let after = try query.pageToken.flatMap { PageToken.isEmail($0) ? $0 : nil }.map(PageToken.email)
        let (users, next) = try await operators.users.users(emailPrefix: prefix, state: state, afterEmail: after, limit: pageSize, for: try call)
        let token = next.map(PageToken.token(email:))
        let link = token.map { token in
            var items = [URLQueryItem(name: "emailPrefix", value: prefix)]
            if let state { items.append(URLQueryItem(name: "state", value: state.rawValue)) }
            items += [URLQueryItem(name: "pageSize", value: "\(pageSize)"), URLQueryItem(name: "pageToken", value: token)]
            return "</admin/v1/users?\(Self.encoded(items))>; rel=\"next\""
        }
        return .ok(.init(headers: .init(link: link), body: .json(.init(users: users.map(Self.summary), nextPageToken: token))))
    }

    func listEvents(_ input: Operations.ListEvents.Input) async throws -> Operations.ListEvents.Output {
        let query = input.query
        let pageSize = Self.pageSize(query.pageSize, of: .listEvents)
        let type = query._type.flatMap { AuditEventType(rawValue: $0.rawValue) }
        let filter = AuditEventFilter(userID: query.userId, type: type, outcome: query.outcome.flatMap { AuditOutcome(rawValue: $0.rawValue) },
                                      clientIP: query.clientIp, since: query.since, until: query.until)
        let before = try query.pageToken.map(PageToken.eventID)
        let (events, next) = try await operators.audit.events(filter, before: before, limit: pageSize, for: try call)
        let token = next.map(PageToken.token(event:))
        let link = token.map { token in
            var parameters = URLComponents(string: "/admin/v1/events")!
            parameters.queryItems = [("userId", query.userId), ("type", query._type?.rawValue), ("outcome", query.outcome?.rawValue),
                                     ("clientIp", query.clientIp), ("since", query.since.map(UTCTimestamp.rfc3339)),
                                     ("until", query.until.map(UTCTimestamp.rfc3339)), ("pageSize", "\(pageSize)"), ("pageToken", token)]
                .compactMap { name, value in value.map { URLQueryItem(name: name, value: $0) } }
            // `+` of a time zone and `:` are sent encoded, so the link reads back as it was asked.
            return "<\(parameters.percentEncodedPath)?\(Self.encoded(parameters.queryItems ?? []))>; rel=\"next\""
        }
        return .ok(.init(headers: .init(link: link), body: .json(.init(events: events.map(Self.wire), nextPageToken: token))))
    }

    func getUser(_ input: Operations.GetUser.Input) async throws -> Operations.GetUser.Output {
        .ok(.init(body: .json(Self.wire(try await operators.users.detail(userID: input.path.userId, for: try call), now: operators.users.now()))))
    }

    func lockUser(_ input: Operations.LockUser.Input) async throws -> Operations.LockUser.Output {
        try await operators.users.lock(.id(input.path.userId), for: try call)
        return .noContent(.init())
    }

    func unlockUser(_ input: Operations.UnlockUser.Input) async throws -> Operations.UnlockUser.Output {
        try await operators.users.unlock(.id(input.path.userId), for: try call)
        return .noContent(.init())
    }

    func endUserSessions(_ input: Operations.EndUserSessions.Input) async throws -> Operations.EndUserSessions.Output {
        try await operators.users.endSessions(.id(input.path.userId), for: try call)
        return .noContent(.init())
    }
}

/// A page's position: `<created_at seconds>.<user id>` of the last user of a page, or the id of
/// the last event (the document's patterns; any text of that form is a position).
enum PageToken {
    static func token(_ cursor: UserPageCursor) -> String { "\(Int(cursor.createdAt.timeIntervalSince1970)).\(cursor.id)" }

    static func token(event id: String) -> String { id }

    /// Throws `DomainError(.invalidField)` (field `pageToken`) for text of another form.
    static func cursor(_ token: String) throws -> UserPageCursor {
        // Bounded (`AdminInput` checks the form first): a time past any user's creation would
        // overflow where it becomes a database value.
        guard !token.hasPrefix("e"), let dot = token.firstIndex(of: "."), let seconds = Int(token[..<dot]), (0...99_999_999_999).contains(seconds),
              case let id = token[token.index(after: dot)...], !id.isEmpty, id.count <= 64 else {
            throw DomainError(.invalidField, message: "pageToken is not a page token of this API.", field: "pageToken")
        }
        return UserPageCursor(createdAt: Date(timeIntervalSince1970: TimeInterval(seconds)), id: String(id))
    }

    static func eventID(_ token: String) throws -> String { token }

    /// `e` and the base64url of the last address of a page of a prefix search.
    static func token(email: String) -> String {
        "e" + Data(email.utf8).base64URL
    }

    /// Whether `token` is of the prefix search's form.
    static func isEmail(_ token: String) -> Bool { token.hasPrefix("e") }

    /// The address a prefix search's page continues after. Read leniently (a dangling last
    /// character dropped, bytes that are no UTF-8 replaced): any token of the form is a position,
    /// as the document promises. Throws `DomainError(.invalidField)` (field `pageToken`) for a
    /// token of another form.
    static func email(_ token: String) throws -> String {
        var text = String(token.dropFirst()).replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        if text.count % 4 == 1 { text.removeLast() }
        text += String(repeating: "=", count: (4 - text.count % 4) % 4)
        guard isEmail(token), let data = Data(base64Encoded: text) else {
            throw DomainError(.invalidField, message: "pageToken is not a page token of this search.", field: "pageToken")
        }
        return String(decoding: data, as: UTF8.self)
    }
}
