import Foundation
import LatchkeyDomain

/// The dashboard's charts: bars drawn as SVG on the server (no script, no library), each with a
/// title, and the same numbers in a table for screen readers.
enum ConsoleCharts {
    /// A chart: its series (`DashboardBucket` keys) and their names.
    struct Chart {
        let id: String
        let title: String
        let series: [(key: String, name: String)]
    }

    static let charts = [
        Chart(id: "logins", title: "Logins", series: [("logins_succeeded", "succeeded"), ("logins_failed", "failed")]),
        Chart(id: "lockouts", title: "Lockouts", series: [("lockouts", "lockouts")]),
        Chart(id: "registrations", title: "Registrations", series: [("registrations", "email or SSO"), ("phone_signups", "phone sign-ups")]),
        Chart(id: "sms", title: "SMS sent", series: [("sms_sent", "SMS sent")]),
        Chart(id: "shed", title: "Requests shed by the admission gate", series: [("shed", "shed")]),
    ]

    /// The values of one period's charts for the dashboard template.
    static func period(id: String, label: String, buckets: [DashboardBucket], starts: [Date], hourly: Bool) -> [String: Any] {
        let byStart = Dictionary(buckets.map { ($0.start, $0.counts) }, uniquingKeysWith: { first, _ in first })
        let labels = starts.map { start -> String in
            let text = ConsoleRoutes.time(start)
            return hourly ? String(text.suffix(8).prefix(5)) : String(text.prefix(10))
        }
        return ["id": id, "label": label, "charts": charts.map { chart -> [String: Any] in
            let rows = starts.map { start in chart.series.map { byStart[start]?[$0.key] ?? 0 } }
            return ["id": "\(id)-\(chart.id)", "title": chart.title, "total": rows.joined().reduce(0, +),
                    "svg": svg(id: "\(id)-\(chart.id)", title: chart.title, rows: rows, labels: labels, names: chart.series.map(\.name)),
                    "series": chart.series.enumerated().map { ["name": $0.element.name, "cssClass": "s\($0.offset)"] },
                    "rows": zip(labels, rows).map { ["label": $0.0, "values": $0.1] }]
        }]
    }

    /// Bars side by side per period, scaled to the largest count; every bar has a `<title>` (its count).
    static func svg(id: String, title: String, rows: [[Int]], labels: [String], names: [String]) -> String {
        let width = 320.0, height = 140.0, bottom = 120.0, top = 12.0
        let maximum = max(1, rows.joined().max() ?? 0)
        let slot = width / Double(max(1, rows.count)), bar = max(1, slot * 0.8 / Double(max(1, names.count)))
        var parts = ["<svg viewBox=\"0 0 \(Int(width)) \(Int(height))\" role=\"img\" aria-labelledby=\"chart-\(id)\" focusable=\"false\">",
                     "<title>\(HTMLText().escapeText(title))</title>",
                     "<line class=\"axis\" x1=\"0\" y1=\"\(bottom)\" x2=\"\(width)\" y2=\"\(bottom)\"/>",
                     "<text x=\"2\" y=\"10\" font-size=\"9\">\(maximum)</text>"]
        for (index, counts) in rows.enumerated() {
            for (series, count) in counts.enumerated() {
                let h = (bottom - top) * Double(count) / Double(maximum)
                let x = Double(index) * slot + slot * 0.1 + Double(series) * bar
                parts.append("<rect class=\"s\(series)\" x=\"\(f(x))\" y=\"\(f(bottom - h))\" width=\"\(f(bar))\" height=\"\(f(h))\">"
                    + "<title>\(HTMLText().escapeText("\(labels[index]): \(count) \(names[series])"))</title></rect>")
            }
        }
        let step = max(1, rows.count / 6)
        for index in stride(from: 0, to: rows.count, by: step) {
            parts.append("<text x=\"\(f(Double(index) * slot))\" y=\"134\" font-size=\"9\">\(HTMLText().escapeText(labels[index]))</text>")
        }
        parts.append("</svg>")
        return parts.joined()
    }

    /// A coordinate with one decimal.
    static func f(_ value: Double) -> String { String((value * 10).rounded() / 10) }
}
