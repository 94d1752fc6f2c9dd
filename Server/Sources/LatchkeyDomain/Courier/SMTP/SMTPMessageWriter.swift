import Foundation

/// Writes an outgoing email as an Internet message (RFC 5322, MIME): the headers a receiver and
/// its filters expect, and the text body alone or beside the HTML one (multipart/alternative, the
/// text first so that a reader without HTML shows it), each in quoted-printable UTF-8 so that every
/// line is 7-bit and at most 76 characters. Lines end in CRLF; dot-stuffing is the DATA command's
/// (`MIMEEncoding.dotStuffed`).
public struct SMTPMessageWriter: Sendable {
    /// The sender's address, also the domain of each Message-ID (not the relay's: the ids stay the
    /// same whichever relay carries the mail).
    public var fromAddress: String
    /// The sender's display name, if any.
    public var fromName: String?

    public init(fromAddress: String, fromName: String? = nil) {
        self.fromAddress = fromAddress
        self.fromName = fromName
    }

    /// The message's text, CRLF line breaks, not yet dot-stuffed.
    /// - Parameters:
    ///   - boundary: the multipart boundary; random unless a test fixes it.
    public func write(_ message: OutgoingMessage, date: Date, boundary: String = "=_latchkey_" + SecureRandom.identifier()) -> String {
        let domain = fromAddress.split(separator: "@").last.map(String.init) ?? "localhost"
        var headers = [
            "Date: \(Self.date(date))",
            "From: \(fromName.map { MIMEEncoding.displayName($0) + " <\(fromAddress)>" } ?? fromAddress)",
            "To: \(message.to)",
            "Subject: \(MIMEEncoding.headerText(message.subject))",
            "Message-ID: <\(message.id)@\(domain)>",
            // RFC 3834: an automatic message; vacation responders do not answer it.
            "Auto-Submitted: auto-generated",
            "MIME-Version: 1.0",
        ]
        if let language = message.language, !language.isEmpty, language.allSatisfy({ $0.isASCII && ($0.isLetter || $0 == "-") }) {
            headers.append("Content-Language: \(language)")
        }
        let text = Self.part(type: "text/plain", body: message.body)
        guard let html = message.html else {
            return (headers + text.headers).joined(separator: "\r\n") + "\r\n\r\n" + text.body + "\r\n"
        }
        let htmlPart = Self.part(type: "text/html", body: html)
        headers.append("Content-Type: multipart/alternative;\r\n boundary=\"\(boundary)\"")
        var lines = headers + [""]
        for part in [text, htmlPart] {
            lines.append("--\(boundary)")
            lines += part.headers
            lines += ["", part.body]
        }
        lines.append("--\(boundary)--")
        return lines.joined(separator: "\r\n") + "\r\n"
    }

    private static func part(type: String, body: String) -> (headers: [String], body: String) {
        (["Content-Type: \(type); charset=UTF-8", "Content-Transfer-Encoding: quoted-printable"],
         MIMEEncoding.quotedPrintable(body))
    }

    /// RFC 5322's date-time, in UTC: `Fri, 27 Nov 2026 12:14:30 +0000`.
    static func date(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss '+0000'"
        return formatter.string(from: date)
    }
}
