import Foundation

extension HTTPProviderChannel {
    /// What is replaced in a recorded answer.
    package static let redactionMark = "[redacted]"

    /// The values of `message` a provider may echo in a refusal (Twilio echoes `To`, some
    /// providers the body): its data (the code, the link), text, HTML, subject and recipient.
    /// Values shorter than four characters are left, so that a flag such as `1` does not blank
    /// the answer; a code is at least four.
    package static func redactions(of message: OutgoingMessage) -> [String] {
        (Array(message.data.values) + linkTokens(message) + [message.body, message.html ?? "", message.subject, message.to])
            .filter { $0.count >= 4 }
    }

    /// The query values of the message's link (its single-use token), so an answer that echoes
    /// only the token, or a link cut short, does not keep it either.
    private static func linkTokens(_ message: OutgoingMessage) -> [String] {
        guard let link = message.data["link"], let items = URLComponents(string: link)?.queryItems else { return [] }
        return items.compactMap(\.value)
    }

    /// `text` with every occurrence of each value replaced by `redactionMark`, the longest value
    /// first (a text holds the code), in every form an echo may take: as it is, escaped for a
    /// JSON string (with `/` as `\/` too), percent-encoded as a form or a URL encodes it, and
    /// escaped for HTML or XML. Letters' case is ignored, as percent-encoding's hex digits vary.
    package static func redact(_ text: String, _ values: [String]) -> String {
        let forms = Set(values.flatMap(encodings)).filter { !$0.isEmpty }.sorted { $0.count > $1.count }
        return forms.reduce(text) { $0.replacingOccurrences(of: $1, with: redactionMark, options: .caseInsensitive) }
    }

    private static func encodings(_ value: String) -> [String] {
        let json = JSONString().escapeText(value)
        let unreserved = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~")
        let html = value.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
        return [value, json, json.replacingOccurrences(of: "/", with: "\\/"), FormValue().escapeText(value),
                value.addingPercentEncoding(withAllowedCharacters: unreserved) ?? "", html]
    }
}
