import Foundation
import Hummingbird
import LatchkeyCore
import LatchkeyDomain
import LatchkeyHTTP

/// The console's read-only pages: the audit trail, the courier's messages, the dashboard.
extension ConsoleRoutes {
    func events(_ request: Request, _ staff: SignedIn) async throws -> Response {
        let query = request.uri.queryParameters
        func text(_ name: String) -> String? { query.get(name).flatMap { $0.trimmingCharacters(in: .whitespaces).isEmpty ? nil : $0 } }
        var values = values("Events", staff)
        let type = text("type").flatMap(AuditEventType.init(rawValue:)), outcome = text("outcome").flatMap(AuditOutcome.init(rawValue:))
        for name in ["userId", "clientIp", "since", "until"] { values[name] = text(name) ?? "" }
        values["types"] = [["value": "", "label": "Any", "selected": type == nil]]
            + AuditEventType.allCases.map { ["value": $0.rawValue, "label": $0.rawValue, "selected": $0 == type] }
        values["outcomes"] = [["value": "", "label": "Any", "selected": outcome == nil],
                              ["value": "success", "label": "success", "selected": outcome == .success],
                              ["value": "failure", "label": "failure", "selected": outcome == .failure]]
        func date(_ name: String) throws -> Date? {
            guard let value = text(name) else { return nil }
            guard let date = try? SecondsDateTranscoder().decode(value) else {
                throw DomainError.invalidField(name, "\(name == "since" ? "From" : "Until") must be a UTC time such as 2026-11-25T09:00:00Z.")
            }
            return date
        }
        let page: (events: [AuditEvent], next: String?)
        do {
            let filter = AuditEventFilter(userID: text("userId").map { String($0.prefix(64)) }, type: type, outcome: outcome,
                                          clientIP: text("clientIp").map { String($0.prefix(45)) }, since: try date("since"),
                                          until: try date("until"))
            let before = text("page").flatMap { $0.range(of: "^[0-9]{1,20}-[0-9a-f]{1,16}$", options: .regularExpression) == nil ? nil : $0 }
            page = try await operators.audit.events(filter, before: before, limit: Self.pageSize, for: staff.call)
        } catch let error as DomainError where error.kind == .invalidField {
            values["error"] = error.message
            values["events"] = [[String: Any]]()
            return ConsolePage(status: .badRequest, template: "events", values: values).response()
        }
        values["events"] = page.events.map(Self.row)
        if let next = page.next {
            let items = ["userId", "type", "outcome", "clientIp", "since", "until"].compactMap { name in
                text(name).map { URLQueryItem(name: name, value: $0) }
            } + [URLQueryItem(name: "page", value: next)]
            values["next"] = "/console/events?" + AdminHandler.encoded(items)
            values["short"] = page.events.count < Self.pageSize
        }
        return ConsolePage(template: "events", values: values).response()
    }

    func courier(_ request: Request, _ staff: SignedIn) async throws -> Response {
        let query = request.uri.queryParameters
        let state = query.get("state").flatMap(CourierMessageState.init(rawValue:))
        var values = values("Courier", staff)
        values["states"] = [["value": "", "label": "Any", "selected": state == nil]]
            + CourierMessageState.allCases.map { ["value": $0.rawValue, "label": $0.rawValue, "selected": $0 == state] }
        let cursor = query.get("page").flatMap { try? PageToken.cursor($0) }
        let page = try await operators.courier.messages(state: state, after: cursor, limit: Self.pageSize, for: staff.call)
        values["messages"] = page.messages.map { message -> [String: Any] in
            ["created": Self.time(message.createdAt), "channel": message.channel, "recipient": message.recipient,
             "template": message.template, "state": message.deliveredAt != nil ? "sent" : message.failedAt != nil ? "failed" : "pending",
             "attempts": message.attempts, "error": message.lastError ?? ""]
        }
        if let next = page.next {
            var items = [URLQueryItem(name: "page", value: PageToken.token(next))]
            if let state { items.append(URLQueryItem(name: "state", value: state.rawValue)) }
            values["next"] = "/console/courier?" + AdminHandler.encoded(items)
        }
        return ConsolePage(template: "courier", values: values).response()
    }

    func dashboard(_ staff: SignedIn) async throws -> Response {
        let time = now()
        let hour = floor(time.timeIntervalSince1970 / 3600) * 3600, day = floor(time.timeIntervalSince1970 / 86_400) * 86_400
        let hourly = try await console.dashboard(since: Date(timeIntervalSince1970: hour - 23 * 3600), bucket: 3600)
        let daily = try await console.dashboard(since: Date(timeIntervalSince1970: day - 6 * 86_400), bucket: 86_400)
        var values = values("Dashboard", staff)
        values["periods"] = [
            ConsoleCharts.period(id: "day", label: "The last 24 hours, by hour (UTC)", buckets: hourly,
                                 starts: (0..<24).map { Date(timeIntervalSince1970: hour - Double(23 - $0) * 3600) }, hourly: true),
            ConsoleCharts.period(id: "week", label: "The last 7 days, by day (UTC)", buckets: daily,
                                 starts: (0..<7).map { Date(timeIntervalSince1970: day - Double(6 - $0) * 86_400) }, hourly: false),
        ]
        return ConsolePage(template: "dashboard", values: values).response()
    }
}
