import Foundation

/// A date written in UTC to the whole second, its digits written in place: the answers' RFC 3339
/// `2026-11-22T12:43:23Z`, and the console's `2026-11-22 12:43:23`. Foundation's ISO 8601 format
/// style costs a few microseconds a date, which a page of a hundred rows or every answer pays.
/// The calendar is the proleptic Gregorian one (`gmtime_r`): a date before 1582-10-15, which no
/// stored time has, is written days away from what Foundation's parser, Julian before then, reads.
package enum UTCTimestamp {
    /// RFC 3339, whole seconds, UTC: `2026-11-22T12:43:23Z`.
    package static func rfc3339(_ date: Date) -> String { text(date, between: UInt8(ascii: "T"), zone: true) }

    /// As an operator reads it, without the zone (the console says its times are UTC):
    /// `2026-11-22 12:43:23`.
    package static func readable(_ date: Date) -> String { text(date, between: UInt8(ascii: " "), zone: false) }

    /// `YYYY-MM-DD`, `between`, `HH:MM:SS`, then `Z` if `zone`. A year outside 0–9999, which
    /// RFC 3339 cannot write and no stored date has, is written with its sign and all its digits.
    private static func text(_ date: Date, between: UInt8, zone: Bool) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        let year = Int(parts.tm_year) + 1900
        let (month, day, hour, minute, second) = (Int(parts.tm_mon) + 1, Int(parts.tm_mday), Int(parts.tm_hour), Int(parts.tm_min),
                                                  Int(parts.tm_sec))
        guard (0...9999).contains(year) else {
            return String(format: "%d-%02d-%02d%@%02d:%02d:%02d%@", year, month, day, String(UnicodeScalar(between)), hour, minute, second,
                          zone ? "Z" : "")
        }
        let fields: [(value: Int, width: Int, then: UInt8?)] = [
            (year, 4, UInt8(ascii: "-")), (month, 2, UInt8(ascii: "-")), (day, 2, between),
            (hour, 2, UInt8(ascii: ":")), (minute, 2, UInt8(ascii: ":")), (second, 2, zone ? UInt8(ascii: "Z") : nil),
        ]
        return String(unsafeUninitializedCapacity: 20) { text in
            var end = 0
            for field in fields {
                var value = field.value
                for position in stride(from: end + field.width - 1, through: end, by: -1) {
                    text[position] = UInt8(ascii: "0") + UInt8(value % 10)
                    value /= 10
                }
                end += field.width
                if let then = field.then {
                    text[end] = then
                    end += 1
                }
            }
            return end
        }
    }
}
