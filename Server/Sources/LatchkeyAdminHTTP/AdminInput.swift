import Foundation
import HTTPTypes
import LatchkeyCore
import LatchkeyDomain
import OpenAPIRuntime

/// What the admin API checks of a request before the generated handler reads it, so bad input is
/// a 400 naming its parameter: no control character (a NUL, which PostgreSQL's `text` cannot
/// hold, or a line break) in a path segment or a query value; the enumerated and numeric query
/// parameters hold one of their values (the runtime's own decoding error names no parameter).
enum AdminInput {
    /// The query parameters with a fixed set of values.
    static let choices: [String: Set<String>] = [
        "state": Set(UserStateFilter.allCases.map(\.rawValue)), "outcome": ["success", "failure"],
    ]
    static let integers: Set<String> = ["pageSize"]

    /// Throws `DomainError(.invalidField)` naming the parameter at fault.
    static func check(_ request: HTTPRequest) throws {
        guard let target = request.path, let components = URLComponents(string: target) else { return }
        let segments = components.path.split(separator: "/")
        for segment in segments where (segment.removingPercentEncoding ?? String(segment)).unicodeScalars.contains(where: isControl) {
            // The only path parameter of the admin API is the user's id.
            throw DomainError(.invalidField, message: "userId must not hold control characters.", field: "userId")
        }
        for item in components.queryItems ?? [] {
            let value = item.value ?? ""
            if value.unicodeScalars.contains(where: isControl) {
                throw DomainError(.invalidField, message: "\(item.name) must not hold control characters.", field: item.name)
            }
            if let allowed = choices[item.name], !allowed.contains(value) {
                throw DomainError(.invalidField, message: "\(item.name) is one of \(allowed.sorted().joined(separator: ", ")).",
                                  field: item.name)
            }
            if integers.contains(item.name), Int(value) == nil {
                throw DomainError(.invalidField, message: "\(item.name) must be a whole number.", field: item.name)
            }
        }
    }

    static func isControl(_ scalar: Unicode.Scalar) -> Bool { scalar.properties.generalCategory == .control }

    /// `handler` behind `check`.
    static func guarded(_ handler: @escaping @Sendable (HTTPRequest, HTTPBody?, ServerRequestMetadata) async throws
        -> (HTTPResponse, HTTPBody?)) -> @Sendable (HTTPRequest, HTTPBody?, ServerRequestMetadata) async throws -> (HTTPResponse, HTTPBody?) {
        { request, body, metadata in
            try check(request)
            return try await handler(request, body, metadata)
        }
    }
}
