import Foundation
import LatchkeyDomain
import OpenAPIRuntime

/// Encodes dates as RFC 3339 UTC timestamps with whole seconds (`2026-11-22T12:43:23Z`, written by
/// `UTCTimestamp` without a formatter's cost on every answer); decodes with the runtime's ISO 8601
/// parser.
package struct SecondsDateTranscoder: DateTranscoder {
    package init() {}
    package func encode(_ date: Date) throws -> String { UTCTimestamp.rfc3339(date) }

    /// RFC 3339 with or without fractional seconds (both are `date-time`).
    package func decode(_ text: String) throws -> Date {
        do { return try ISO8601DateTranscoder().decode(text) } catch {
            guard let date = try? ISO8601DateTranscoder(options: [.withInternetDateTime, .withFractionalSeconds]).decode(text) else {
                throw error
            }
            return date
        }
    }
}
