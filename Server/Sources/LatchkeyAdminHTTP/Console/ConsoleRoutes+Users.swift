import Foundation
import Hummingbird
import LatchkeyCore
import LatchkeyDomain
import LatchkeyHTTP

/// The console's users: the search, one user's page, the confirmation of an action and the action.
extension ConsoleRoutes {
    static let pageSize = 50

    func users(_ request: Request, _ staff: SignedIn) async throws -> Response {
        let query = request.uri.queryParameters
        let q = (query.get("q") ?? "").trimmingCharacters(in: .whitespaces)
        let externalID = (query.get("externalId") ?? "").trimmingCharacters(in: .whitespaces)
        let state = query.get("state").flatMap(UserStateFilter.init(rawValue:))
        let token = query.get("page")
        var values = values("Users", staff)
        values["q"] = q
        values["externalId"] = externalID
        values["searched"] = !q.isEmpty || !externalID.isEmpty
        values["states"] = [["value": "", "label": "Any", "selected": state == nil]]
            + UserStateFilter.allCases.map { ["value": $0.rawValue, "label": $0.rawValue.capitalized, "selected": $0 == state] }
        let found: [UserRecord]
        var next: String?
        do {
            if !externalID.isEmpty {
                // The issuer's id may name several users: with an exact lookup too, the one both name.
                guard q.isEmpty || Self.lookup(q) != nil else {
                    throw DomainError(.invalidField, message: "An external id is searched alone, or with a whole address, phone number, user id or thumbprint.",
                                      field: "externalId")
                }
                let lookups = [.externalID(externalID)] + (Self.lookup(q).map { [$0] } ?? [])
                found = try await operators.users.users(lookups, state: state, after: nil, limit: Self.pageSize, for: staff.call).users
            } else if let lookup = Self.lookup(q) {
                found = try await operators.users.users([lookup], state: state, after: nil, limit: 1, for: staff.call).users
            } else if !q.isEmpty {
                let page = try await operators.users.users(emailPrefix: q, state: state, afterEmail: try token.map(PageToken.email), limit: Self.pageSize,
                                                 for: staff.call)
                found = page.users
                next = page.next.map(PageToken.token(email:))
            } else {
                let page = try await operators.users.users([], state: state, after: try token.map(PageToken.cursor), limit: Self.pageSize, for: staff.call)
                found = page.users
                next = page.next.map(PageToken.token)
            }
        } catch let error as DomainError where error.kind == .invalidField {
            values["error"] = error.message
            return ConsolePage(status: .badRequest, template: "users", values: values).response()
        }
        values["hasUsers"] = !found.isEmpty
        values["users"] = found.map { user -> [String: Any] in
            ["id": user.id, "email": user.email, "name": [user.firstName, user.lastName].compactMap { $0 }.joined(separator: " "),
             "state": Self.state(of: user), "created": Self.time(user.createdAt)]
        }
        if let next {
            var items = [URLQueryItem(name: "q", value: q), URLQueryItem(name: "page", value: next)]
            if let state { items.append(URLQueryItem(name: "state", value: state.rawValue)) }
            values["next"] = "/console/users?" + AdminHandler.encoded(items)
        }
        return ConsolePage(template: "users", values: values).response()
    }

    /// The exact lookup a search text is, if it is one: a whole address, an E.164 number, a user
    /// id (a UUID) or a device key's thumbprint; anything else is an address's beginning.
    static func lookup(_ q: String) -> UserAdministration.Lookup? {
        if q.contains("@"), EmailAddress.isValid(q) { return .email(q) }
        if q.hasPrefix("+"), PhoneNumber.isValid(q) { return .phone(q) }
        if UUID(uuidString: q) != nil { return .userID(q.lowercased()) }
        if q.count == 43, q.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) { return .thumbprint(q) }
        return nil
    }

    /// An event as the events page and a user's page show it.
    static func row(_ event: AuditEvent) -> [String: Any] {
        var row: [String: Any] = ["when": time(event.occurredAt), "type": event.type.rawValue, "outcome": event.outcome.rawValue,
                                  "actor": event.actor.rawValue, "clientIp": event.clientIP ?? "",
                                  "details": ([event.reason.map { "reason=\($0)" }, event.deviceID.map { "device=\($0)" }].compactMap { $0 }
                                      + event.details.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }).joined(separator: " ")]
        if let user = event.userID { row["userId"] = user }
        return row
    }

    static func state(of user: UserRecord) -> String {
        [user.status == .active ? "active" : "deactivated", user.locked ? "locked" : nil, user.emailVerified ? nil : "unverified"]
            .compactMap { $0 }.joined(separator: ", ")
    }

    static func time(_ date: Date?) -> String {
        guard let date else { return "—" }
        return UTCTimestamp.readable(date)
    }

    func user(_ id: String, _ request: Request, _ staff: SignedIn) async throws -> Response {
        let detail: UserDetail
        do {
            detail = try await operators.users.detail(userID: id, for: staff.call)
        } catch let error as DomainError {
            return page(.notFound, "No such user", text: error.message, back: "/console/users", staff: staff).response()
        }
        let user = detail.user, canAct = staff.account.role.includes(.support)
        var values = values(user.email, staff)
        if let done = request.uri.queryParameters.get("done").flatMap(ConsoleAction.named) { values["notice"] = done.done }
        values["id"] = user.id
        values["email"] = user.email
        values["verified"] = user.emailVerified
        if let phone = user.phoneNormalized { values["phone"] = phone }
        if let external = user.externalId { values["externalId"] = external }
        values["name"] = [user.firstName, user.lastName].compactMap { $0 }.joined(separator: " ")
        values["state"] = Self.state(of: user)
        values["failures"] = user.failedAttempts
        values["created"] = Self.time(user.createdAt)
        values["lastLogin"] = Self.time(user.lastLoginAt)
        values["hasBlocks"] = !detail.loginBlocks.isEmpty
        values["blocks"] = detail.loginBlocks.map { block -> [String: Any] in
            var row: [String: Any] = ["reason": block.reason.rawValue.replacingOccurrences(of: "_", with: " "), "message": block.message]
            if let until = block.until { row["until"] = Self.time(until) }
            return row
        }
        values["canAct"] = canAct
        let confirmPage = "/console/users/\(PercentEncoding.unreserved(user.id))/confirm?"
        func link(_ action: ConsoleAction, device: String? = nil, session: String? = nil, factor: String? = nil) -> [String: Any] {
            var items = [URLQueryItem(name: "action", value: action.name)]
            if let device { items.append(URLQueryItem(name: "device", value: device)) }
            if let factor { items.append(URLQueryItem(name: "factor", value: factor)) }
            if let session { items.append(URLQueryItem(name: "session", value: session)) }
            return ["name": action.name, "label": action.label, "href": confirmPage + AdminHandler.encoded(items)]
        }
        values["actions"] = ConsoleAction.all
            .filter { $0.target == .user && staff.account.role.includes($0.role) && $0.applies(to: detail, limits: operators.users.issuer.attemptLimits) }
            .map { link($0) }
        values["devices"] = detail.devices.map { device -> [String: Any] in
            var row: [String: Any] = ["id": device.deviceID, "label": device.label ?? "", "type": device.deviceType ?? "",
                                      "app": device.applicationVersion ?? "", "status": device.status.rawValue,
                                      "linked": Self.time(device.linkedAt), "lastLogin": Self.time(device.lastLoginAt)]
            if let thumbprint = device.keyThumbprint { row["thumbprint"] = thumbprint }
            if let certificate = detail.certificates[device.deviceID] {
                row["certificate"] = switch certificate.state(at: operators.users.now()) {
                case .revoked: "revoked \(Self.time(certificate.revokedAt))"
                case .expired: "expired \(Self.time(certificate.expiresAt))"
                case .good: "valid until \(Self.time(certificate.expiresAt))"
                }
            }
            row["actions"] = ConsoleAction.all.filter { $0.target == .device && staff.account.role.includes($0.role) && $0.applies(to: device) }
                .map { link($0, device: device.deviceID) }
            return row
        }
        // Read as the admin API reads them (`listUserFactors`, an event with the reason `read`).
        let removeFactor = ConsoleAction.named("removeFactor")!
        let canRemove = staff.account.role.includes(removeFactor.role)
        values["factors"] = try await operators.factors.factors(.id(user.id), for: staff.call).factors.map { factor -> [String: Any] in
            var row: [String: Any] = ["id": factor.id, "kind": factor.kind.rawValue, "name": factor.name ?? "",
                                      "created": Self.time(factor.createdAt), "lastUsed": Self.time(factor.lastUsedAt)]
            if let remaining = factor.remaining { row["remaining"] = "\(remaining) unused" }
            if factor.backedUp == true { row["remaining"] = "synced" }
            // The questions are the customer's to change (or a reset's to replace), not support's to remove.
            if canRemove && factor.kind != .question { row["remove"] = link(removeFactor, factor: factor.id)["href"] ?? "" }
            return row
        }
        let endSession = ConsoleAction.named("endSession")!
        values["sessions"] = detail.sessions.map { session -> [String: Any] in
            let id = String(session.digest.prefix(16))
            return ["id": id, "device": session.deviceID ?? "—", "created": Self.time(session.createdAt),
                    "lastSeen": Self.time(session.lastSeenAt), "privileged": Self.time(detail.privilegedUntil(session)),
                    "bound": session.keyThumbprint != nil, "end": link(endSession, session: id)["href"] ?? ""]
        }
        values["moreSessions"] = detail.moreSessions
        values["hasTokens"] = !detail.deviceTokens.isEmpty
        values["tokens"] = detail.deviceTokens.map { token -> [String: Any] in
            ["id": String(token.digest.prefix(16)), "device": token.deviceID, "created": Self.time(token.createdAt),
             "expires": Self.time(token.expiresAt)]
        }
        values["hasEvents"] = !detail.events.isEmpty
        values["events"] = detail.events.map(Self.row)
        return ConsolePage(template: "user", values: values).response()
    }

    func confirm(_ id: String, _ request: Request, _ staff: SignedIn) async throws -> Response {
        let query = request.uri.queryParameters
        guard let action = query.get("action").flatMap(ConsoleAction.named) else {
            return page(.notFound, "No such action", text: "Open the user's page and choose an action there.", back: "/console/users/\(PercentEncoding.unreserved(id))",
                        staff: staff).response()
        }
        guard staff.account.role.includes(action.role) else { return try await refused(action, userID: id, staff) }
        // Read as the admin API reads one user (`getUser`, an event with the reason `read`).
        let user: UserRecord
        do {
            user = try await operators.users.user(.id(id), for: staff.call)
        } catch let error as DomainError {
            return page(.notFound, "No such user", text: error.message, back: "/console/users", staff: staff).response()
        }
        let device = query.get("device"), session = query.get("session"), factor = query.get("factor")
        var values = values(action.label, staff)
        values["question"] = action.question(email: user.email, device: device, session: session, factor: factor)
        values["userId"] = PercentEncoding.unreserved(user.id)
        values["action"] = action.name
        if let device { values["device"] = device }
        if let session { values["session"] = session }
        if let factor { values["factor"] = factor }
        values["button"] = action.label
        values["buttonClass"] = action.danger ? "danger" : ""
        return ConsolePage(template: "confirm", values: values).response()
    }

    func act(_ id: String, _ request: Request, _ staff: SignedIn) async throws -> Response {
        let fields = try await form(request)
        // No change without the form's CSRF field of this sign-in.
        guard cookies.verify(fields["csrf"], forSession: staff.session.digest) else { return staleForm(staff) }
        guard let action = fields["action"].flatMap(ConsoleAction.named) else {
            return page(.badRequest, "No such action", text: "Nothing was changed.", back: "/console/users/\(PercentEncoding.unreserved(id))", staff: staff).response()
        }
        guard staff.account.role.includes(action.role) else { return try await refused(action, userID: id, staff) }
        do {
            try await action.perform(userID: id, device: fields["device"], session: fields["session"], factor: fields["factor"],
                                     operators: operators, call: staff.call)
        } catch let error as DomainError {
            return page(HTTPResponse.Status(code: error.kind.httpStatus), "Not done", text: error.message,
                        back: "/console/users/\(PercentEncoding.unreserved(id))", staff: staff).response()
        }
        if action.name == "erase" { return ConsolePage.redirect("/console/users?done=erase") }
        return ConsolePage.redirect("/console/users/\(PercentEncoding.unreserved(id))?done=\(action.name)")
    }

    /// A role below the action's: 403, recorded as the admin API records it, among the events of
    /// the user the action named.
    private func refused(_ action: ConsoleAction, userID: String, _ staff: SignedIn) async throws -> Response {
        try await operators.trail.refused(action.operation, userID: userID, for: staff.call)
        return page(.forbidden, "Not allowed", text: "Your role (\(staff.account.role.rawValue)) does not allow this; nothing was changed.",
                    back: "/console/users", staff: staff).response()
    }
}
