import Foundation
import LatchkeyDomain
import OpenAPIRuntime

/// Encodes dates as RFC 3339 UTC timestamps with whole seconds (`2026-11-22T12:43:23Z`), without
/// the cost of `ISO8601DateFormatter` on every answer; decodes with the runtime's ISO 8601 parser.
package struct SecondsDateTranscoder: DateTranscoder {
    package init() {}
    package func encode(_ date: Date) throws -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        var text = ""
        text.reserveCapacity(20)
        func append(_ value: Int32, width: Int) {
            let digits = String(value)
            text.append(String(repeating: "0", count: max(0, width - digits.count)))
            text.append(digits)
        }
        append(parts.tm_year + 1900, width: 4)
        text.append("-")
        append(parts.tm_mon + 1, width: 2)
        text.append("-")
        append(parts.tm_mday, width: 2)
        text.append("T")
        append(parts.tm_hour, width: 2)
        text.append(":")
        append(parts.tm_min, width: 2)
        text.append(":")
        append(parts.tm_sec, width: 2)
        text.append("Z")
        return text
    }

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
