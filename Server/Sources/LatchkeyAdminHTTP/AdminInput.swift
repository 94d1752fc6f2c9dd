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
/// length, pattern, enumeration, integer (and its range) or date-time form, as `AdminRoute.all`
/// (generated from the document) declares them.
enum AdminInput {
    typealias Rule = AdminRoute.Rule

    /// The names a non-JSON body's media type is known by, for the refusal's message.
    static let mediaNames = ["application/x-ndjson": "JSON Lines"]

    /// Throws `DomainError(.invalidField)` naming the parameter at fault.
    static func check(_ request: HTTPRequest, route: AdminRoute) throws {
        guard let target = request.path, let components = URLComponents(string: target) else { return }
        // Split as the router splits (the raw path), each parameter decoded once as the runtime
        // decodes it: an encoded slash is part of its segment, never a separator. The route's
        // template has a `{name}` where the request has the parameter.
        let segments = components.percentEncodedPath.split(separator: "/", omittingEmptySubsequences: false)
        for (index, part) in route.path.split(separator: "/", omittingEmptySubsequences: false).enumerated()
        where part.hasPrefix("{") && index < segments.count {
            let name = String(part.dropFirst().dropLast())
            guard let rule = route.pathRules[name] else { continue }
            try check(String(segments[index]).removingPercentEncoding ?? String(segments[index]), rule, name: name)
        }
        // A body the handler reads as it arrives is read by no decoder that would refuse another
        // kind (or none).
        if let type = route.bodyType,
           request.headerFields[.contentType]?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased() != type {
            throw DomainError(.invalidField, message: "Content-Type must be \(type)\(mediaNames[type].map { " (\($0))" } ?? "").",
                              field: "Content-Type")
        }
        for item in components.queryItems ?? [] {
            guard let rule = route.queryRules[item.name] else { continue }
            try check(item.value ?? "", rule, name: item.name)
        }
    }

    /// Checks the fields of `operation`'s JSON body that the generated code does not check (a
    /// key's name). Throws `DomainError(.invalidField)` naming the field at fault.
    static func check(body fields: [String: String], of operation: AdminOperation) throws {
        let rules = AdminRoute.of(operation).bodyRules
        for (name, value) in fields.sorted(by: { $0.key < $1.key }) {
            if let rule = rules[name] { try check(value, rule, name: name) }
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
        if rule.integer {
            guard let number = Int(value) else { throw refuse("must be a whole number.") }
            if let bounds = rule.bounds, !bounds.contains(number) { throw refuse("is \(bounds.lowerBound) to \(bounds.upperBound).") }
        }
        if rule.dateTime, (try? SecondsDateTranscoder().decode(value)) == nil {
            throw refuse("must be an RFC 3339 date-time (2026-11-25T09:30:00Z).")
        }
    }

    /// `handler` behind `check`.
    static func guarded(_ route: AdminRoute, _ handler: @escaping @Sendable (HTTPRequest, HTTPBody?, ServerRequestMetadata) async throws
        -> (HTTPResponse, HTTPBody?)) -> @Sendable (HTTPRequest, HTTPBody?, ServerRequestMetadata) async throws -> (HTTPResponse, HTTPBody?) {
        { request, body, metadata in
            try check(request, route: route)
            // The generated code checks `Accept` only after the handler ran: a key would be made or
            // users imported, then the answer refused. Refused here first instead (the same 400).
            if route.answersJSON, !APIRouteGroups.acceptsJSON(request.headerFields[.accept]) {
                throw DomainError(.invalidRequest, message: "Accept must allow application/json (the answer is JSON).", field: "Accept")
            }
            return try await handler(request, body, metadata)
        }
    }
}
