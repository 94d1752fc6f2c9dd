import Foundation
import HTTPTypes
import LatchkeyCore
import LatchkeyDomain
import LatchkeyHTTP
import OpenAPIRuntime

/// What the admin API checks of a request before the generated handler reads it — the admin
/// document's constraints that the generated code does not enforce — so that every schema-invalid
/// request is a 400 naming its parameter (the runtime's own decoding errors name none): no control
/// character in the path (a NUL, which PostgreSQL's `text` cannot hold); each query parameter's
/// length, pattern, enumeration, integer or date-time form (`AdminAPITests` holds them to the document).
enum AdminInput {
    /// One parameter's constraints, as the document writes them.
    struct Rule: Sendable {
        var lengths: ClosedRange<Int>?
        var pattern: String?
        var choices: Set<String>?
        var integer = false
        var dateTime = false

        static func text(_ lengths: ClosedRange<Int>? = nil, _ pattern: String? = nil) -> Rule { Rule(lengths: lengths, pattern: pattern) }
        static func one(of choices: some Sequence<String>) -> Rule { Rule(choices: Set(choices)) }
        static let whole = Rule(integer: true)
        static let date = Rule(dateTime: true)
    }

    /// No control character (C0, DEL, C1).
    static let printable = "^[^\\x00-\\x1f\\x7f-\\x9f]+$"

    /// The query parameters of each operation.
    static let query: [String: [String: Rule]] = [
        "listUsers": [
            "email": .text(1...320, printable), "emailPrefix": .text(1...320, "^[^\\x00-\\x20\\x7f-\\x9f]+$"), "phone": .text(nil, "^\\+[1-9][0-9]{7,14}$"), "userId": .text(1...64, printable),
            "thumbprint": .text(nil, "^[A-Za-z0-9_-]{43}$"), "externalId": .text(1...255, printable), "state": .one(of: UserStateFilter.allCases.map(\.rawValue)),
            "pageSize": .whole, "pageToken": .text(nil, "^([0-9]{1,11}\\.[0-9A-Za-z-]{1,64}|e[0-9A-Za-z_-]{1,432})$"),
        ],
        "listEvents": [
            "userId": .text(1...64, printable), "type": .one(of: AuditEventType.allCases.map(\.rawValue)),
            "outcome": .one(of: ["success", "failure"]), "clientIp": .text(nil, "^[0-9A-Fa-f:.]{2,45}$"),
            "since": .date, "until": .date, "pageSize": .whole, "pageToken": .text(nil, "^[0-9]{1,20}-[0-9a-f]{1,16}$"),
        ],
        "listCourierMessages": [
            "state": .one(of: CourierMessageState.allCases.map(\.rawValue)), "pageSize": .whole,
            "pageToken": .text(nil, "^[0-9]{1,11}\\.[0-9A-Za-z-]{1,64}$"),
        ],
        "sendResetLink": ["credential": .one(of: ["password", "passcode"])],
        "importUsers": ["update": .one(of: ["true", "false"])],
    ]
    /// The path parameters: a user, one of its devices or sessions, an operator key.
    static let userID = Rule.text(1...64, "^[^\\x00-\\x1f\\x7f-\\x9f/]+$")
    static let deviceID = Rule.text(1...200, "^[^\\x00-\\x1f\\x7f-\\x9f/]+$")
    static let sessionID = Rule.text(nil, "^[0-9a-f]{16}$")
    static let keyID = Rule.text(nil, "^[0-9A-Za-z]{1,64}$")
    /// A key's name over the API (the command line takes any printable name).
    static let keyName = Rule.text(1...100, "^[!-~][ -~]*$")

    /// Throws `DomainError(.invalidField)` naming the parameter at fault.
    static func check(_ request: HTTPRequest, operation: String) throws {
        guard let target = request.path, let components = URLComponents(string: target) else { return }
        // Split as the router splits (the raw path), each parameter decoded once as the runtime
        // decodes it: an encoded slash is part of its segment, never a separator.
        let segments = components.percentEncodedPath.split(separator: "/", omittingEmptySubsequences: false)
        func segment(_ index: Int) -> String { String(segments[index]).removingPercentEncoding ?? String(segments[index]) }
        // `/admin/v1/users/{userId}[/devices/{deviceId}|/sessions/{sessionId}][/…]`, `/admin/v1/keys/{keyId}`.
        if segments.count > 4, segments[3] == "users" {
            try check(segment(4), userID, name: "userId")
            if segments.count > 6, segments[5] == "devices" { try check(segment(6), deviceID, name: "deviceId") }
            if segments.count > 6, segments[5] == "sessions" { try check(segment(6), sessionID, name: "sessionId") }
        }
        if segments.count > 4, segments[3] == "keys" { try check(segment(4), keyID, name: "keyId") }
        // The import's body is read by no decoder that would refuse another kind (or none).
        if operation == "importUsers",
           request.headerFields[.contentType]?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased()
            != "application/x-ndjson" {
            throw DomainError(.invalidField, message: "Content-Type must be application/x-ndjson (JSON Lines).", field: "Content-Type")
        }
        let rules = query[operation] ?? [:]
        for item in components.queryItems ?? [] {
            guard let rule = rules[item.name] else { continue }
            try check(item.value ?? "", rule, name: item.name)
        }
    }

    static func check(_ value: String, _ rule: Rule, name: String) throws {
        func refuse(_ message: String) -> DomainError { DomainError(.invalidField, message: "\(name) \(message)", field: name) }
        if let lengths = rule.lengths, !lengths.contains(value.unicodeScalars.count) {
            throw refuse("must be \(lengths.lowerBound) to \(lengths.upperBound) characters.")
        }
        // ECMA-262's `$` is the end of the text; ICU's also matches before a final line break.
        if let pattern = rule.pattern, value.range(of: pattern.hasSuffix("$") ? pattern.dropLast() + "\\z" : pattern,
                                                   options: .regularExpression) == nil {
            throw refuse("does not have the form \(pattern).")
        }
        if let choices = rule.choices, !choices.contains(value) {
            throw refuse("is one of \(choices.sorted().joined(separator: ", ")).")
        }
        if rule.integer, Int(value) == nil { throw refuse("must be a whole number.") }
        if rule.dateTime, (try? SecondsDateTranscoder().decode(value)) == nil {
            throw refuse("must be an RFC 3339 date-time (2026-11-25T09:30:00Z).")
        }
    }

    /// The operations whose success has a JSON body.
    static let answersJSON: Set<String> = ["listUsers", "getUser", "listEvents", "listCourierMessages", "importUsers", "listOperatorKeys",
                                           "createOperatorKey"]

    /// `handler` behind `check`.
    static func guarded(_ operation: String, _ handler: @escaping @Sendable (HTTPRequest, HTTPBody?, ServerRequestMetadata) async throws
        -> (HTTPResponse, HTTPBody?)) -> @Sendable (HTTPRequest, HTTPBody?, ServerRequestMetadata) async throws -> (HTTPResponse, HTTPBody?) {
        { request, body, metadata in
            try check(request, operation: operation)
            // The generated code checks `Accept` only after the handler ran: a key would be made or
            // users imported, then the answer refused. Refused here first instead (the same 400).
            if answersJSON.contains(operation), !APIRouteGroups.acceptsJSON(request.headerFields[.accept]) {
                throw DomainError(.invalidRequest, message: "Accept must allow application/json (the answer is JSON).", field: "Accept")
            }
            return try await handler(request, body, metadata)
        }
    }
}
