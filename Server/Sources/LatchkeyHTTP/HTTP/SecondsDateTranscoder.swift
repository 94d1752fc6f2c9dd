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
        // `YYYY-MM-DDTHH:MM:SSZ`, each field's digits written in place (this runs for every date of
        // every answer). A year outside 0–9999, which RFC 3339 cannot write and no stored date
        // has, is written with its sign and all its digits.
        let year = Int(parts.tm_year) + 1900
        let fields: [(value: Int, width: Int, then: UInt8)] = [
            (year, 4, UInt8(ascii: "-")), (Int(parts.tm_mon) + 1, 2, UInt8(ascii: "-")), (Int(parts.tm_mday), 2, UInt8(ascii: "T")),
            (Int(parts.tm_hour), 2, UInt8(ascii: ":")), (Int(parts.tm_min), 2, UInt8(ascii: ":")), (Int(parts.tm_sec), 2, UInt8(ascii: "Z")),
        ]
        guard (0...9999).contains(year) else { return String(format: "%d-%02d-%02dT%02d:%02d:%02dZ", year, fields[1].value, fields[2].value,
                                                             fields[3].value, fields[4].value, fields[5].value) }
        return String(unsafeUninitializedCapacity: 20) { text in
            var end = 0
            for field in fields {
                var value = field.value
                for position in stride(from: end + field.width - 1, through: end, by: -1) {
                    text[position] = UInt8(ascii: "0") + UInt8(value % 10)
                    value /= 10
                }
                text[end + field.width] = field.then
                end += field.width + 1
            }
            return end
        }
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
