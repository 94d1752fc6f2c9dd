import Foundation

extension OutgoingMessage {
    /// What replaces a message's value in a recorded or logged failure.
    package static let redactionMark = "[redacted]"

    /// The values of the message a receiver may echo in a refusal (Twilio echoes `To`, some
    /// providers the body; a relay's `550 <bob@example.com>` names the recipient): its data (the
    /// code, the link), the link's query values (its token, should an echo keep only that), the
    /// text, HTML, subject and recipient. Values shorter than four characters are left, so that a
    /// flag such as `1` does not blank the answer; a code is at least four.
    package var sensitiveValues: [String] {
        (Array(data.values) + linkTokens + [body, html ?? "", subject, to]).filter { $0.count >= 4 }
    }

    private var linkTokens: [String] {
        guard let link = data["link"], let items = URLComponents(string: link)?.queryItems else { return [] }
        return items.compactMap(\.value)
    }

    /// `text` with every occurrence of each of the message's values replaced by `redactionMark`,
    /// the longest value first (a text holds the code), in every form an echo may take: as it is,
    /// escaped for a JSON string (with `/` as `\/` too), percent-encoded as a form or a URL
    /// encodes it, and escaped for HTML or XML. Letters' case is ignored, as percent-encoding's
    /// hex digits vary. The courier passes every failure through it before it is stored or logged.
    package func redacting(_ text: String) -> String {
        let forms = Set(sensitiveValues.flatMap(Self.encodings)).filter { !$0.isEmpty }.sorted { $0.count > $1.count }
        return forms.reduce(text) { $0.replacingOccurrences(of: $1, with: Self.redactionMark, options: .caseInsensitive) }
    }

    private static func encodings(_ value: String) -> [String] {
        let json = JSONString().escapeText(value)
        return [value, json, json.replacingOccurrences(of: "/", with: "\\/"), FormValue().escapeText(value),
                PercentEncoding.unreserved(value), HTMLText().escapeText(value)]
    }
}
