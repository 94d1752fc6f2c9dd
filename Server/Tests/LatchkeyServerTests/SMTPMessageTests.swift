import Foundation
import LatchkeyDomain
import Testing

/// An email as the SMTP channel writes it: RFC 5322 headers, MIME parts in quoted-printable,
/// RFC 2047 encoded words, CRLF lines within the limits, dot-stuffing for DATA.
@Suite struct SMTPMessageTests {
    static let date = Date(timeIntervalSince1970: 1_795_781_670)   // Fri, 27 Nov 2026 12:14:30 UTC

    static func message(subject: String = "Verify your email", body: String = "Hello,\nopen the link.",
                        html: String? = "<p>Hello,</p>\n<p><a href=\"https://x.example/v?t=1\">open</a></p>",
                        language: String? = "de") -> OutgoingMessage {
        OutgoingMessage(id: "6f1c8a52-9d7e-4b0a-8f00-000000000001", channel: .email, to: "ada@example.com",
                        template: "email_verification", subject: subject, body: body, html: html, language: language, data: [:])
    }

    /// The header block and the parts of a written message.
    static func split(_ written: String) -> (headers: [String], body: String) {
        let parts = written.components(separatedBy: "\r\n\r\n")
        return (parts[0].components(separatedBy: "\r\n"), parts.dropFirst().joined(separator: "\r\n\r\n"))
    }

    @Test func bothPartsFollowTheHeadersInAMultipartAlternative() throws {
        let writer = SMTPMessageWriter(fromAddress: "no-reply@wallet.example", fromName: "Demo Wallet")
        let written = writer.write(Self.message(), date: Self.date, boundary: "=_b")
        let (headers, body) = Self.split(written)
        #expect(headers == [
            "Date: Fri, 27 Nov 2026 12:14:30 +0000",
            "From: Demo Wallet <no-reply@wallet.example>",
            "To: ada@example.com",
            "Subject: Verify your email",
            "Message-ID: <6f1c8a52-9d7e-4b0a-8f00-000000000001@wallet.example>",
            "Auto-Submitted: auto-generated",
            "MIME-Version: 1.0",
            "Content-Language: de",
            "Content-Type: multipart/alternative;",
            " boundary=\"=_b\"",
        ])
        #expect(body == [
            "--=_b", "Content-Type: text/plain; charset=UTF-8", "Content-Transfer-Encoding: quoted-printable", "",
            "Hello,", "open the link.",
            "--=_b", "Content-Type: text/html; charset=UTF-8", "Content-Transfer-Encoding: quoted-printable", "",
            "<p>Hello,</p>", "<p><a href=3D\"https://x.example/v?t=3D1\">open</a></p>",
            "--=_b--", "",
        ].joined(separator: "\r\n"))
    }

    @Test func aTextOnlyMessageIsOneTextPart() {
        let writer = SMTPMessageWriter(fromAddress: "no-reply@wallet.example")
        let (headers, body) = Self.split(writer.write(Self.message(html: nil, language: nil), date: Self.date))
        #expect(headers.contains("From: no-reply@wallet.example"))
        #expect(!headers.contains { $0.hasPrefix("Content-Language") })
        #expect(headers.suffix(2) == ["Content-Type: text/plain; charset=UTF-8", "Content-Transfer-Encoding: quoted-printable"])
        #expect(body == "Hello,\r\nopen the link.\r\n")
    }

    @Test func nonASCIIHeadersAreEncodedWordsThatDecodeBack() throws {
        let subject = "Bestätigen Sie Ihre E-Mail-Adresse für die Brieftasche – jetzt, bevor der Link abläuft 🔑"
        let writer = SMTPMessageWriter(fromAddress: "no-reply@wallet.example", fromName: "Müller & Söhne")
        let (headers, _) = Self.split(writer.write(Self.message(subject: subject), date: Self.date))
        let unfolded = headers.joined(separator: "\r\n").replacingOccurrences(of: "\r\n ", with: " ").components(separatedBy: "\r\n")
        let from = try #require(unfolded.first { $0.hasPrefix("From: ") })
        #expect(from.hasPrefix("From: =?UTF-8?B?") && from.hasSuffix("?= <no-reply@wallet.example>"))
        #expect(Self.decodeWords(String(from.dropFirst(6).dropLast(26))) == "Müller & Söhne")
        let line = try #require(unfolded.first { $0.hasPrefix("Subject: ") })
        #expect(Self.decodeWords(String(line.dropFirst(9))) == subject)
        for header in headers {
            #expect(header.utf8.count <= 78 && header.unicodeScalars.allSatisfy(\.isASCII), "\(header)")
        }
        let words = line.dropFirst(9).split(separator: " ")
        #expect(words.count > 1 && words.allSatisfy { $0.count <= 75 })
    }

    @Test func aDisplayNameWithSpecialsIsQuotedAndLineBreaksNeverReachAHeader() {
        #expect(MIMEEncoding.displayName("Wallet, Inc. \"Support\"") == "\"Wallet, Inc. \\\"Support\\\"\"")
        #expect(MIMEEncoding.displayName("Demo Wallet") == "Demo Wallet")
        #expect(MIMEEncoding.headerText("Hi\r\nBcc: eve@example.com") == "Hi Bcc: eve@example.com")
        #expect(MIMEEncoding.headerText("=?UTF-8?B?x?=").hasPrefix("=?UTF-8?B?"), "text that looks encoded is encoded")
    }

    @Test func quotedPrintableWrapsLongLinesAndEscapesWhatIsNotPlainASCII() {
        let link = "https://wallet.example/verify?token=" + String(repeating: "A", count: 120)
        let encoded = MIMEEncoding.quotedPrintable("Grüße\n" + link + "\ntrailing space \n=")
        let lines = encoded.components(separatedBy: "\r\n")
        #expect(lines[0] == "Gr=C3=BC=C3=9Fe")
        #expect(lines.allSatisfy { $0.count <= 76 })
        #expect(lines[1].hasSuffix("=") && lines[2].hasSuffix("="), "soft breaks")
        #expect(lines.contains("trailing space=20"))
        #expect(lines.last == "=3D")
        // Undoing the soft breaks and the escapes gives the text back.
        #expect(Self.decodeQuotedPrintable(encoded) == "Grüße\r\n" + link + "\r\ntrailing space \r\n=")
        #expect(!encoded.replacingOccurrences(of: "\r\n", with: "").contains("\n"), "CRLF only")
    }

    @Test func dataIsDotStuffedAndEndsWithTheLoneDot() {
        let stuffed = MIMEEncoding.dotStuffed("Subject: x\r\n\r\n.\r\n..two\nplain\r\n")
        // The CRLF that ends the last line is the one before the lone dot: no empty line is added.
        #expect(stuffed == "Subject: x\r\n\r\n..\r\n...two\r\nplain\r\n.\r\n")
        #expect(MIMEEncoding.dotStuffed("Subject: x\r\n\r\nplain") == "Subject: x\r\n\r\nplain\r\n.\r\n")
        #expect(MIMEEncoding.dotStuffed("Subject: x\r\n\r\nplain\r\n\r\n") == "Subject: x\r\n\r\nplain\r\n\r\n.\r\n",
                "an empty line the message has is kept")
        let body = SMTPMessageWriter(fromAddress: "a@b.example").write(Self.message(body: ".hidden\n.", html: nil), date: Self.date)
        #expect(body.hasSuffix("\r\n.hidden\r\n.\r\n"), "the writer ends the text's last line")
        let wire = MIMEEncoding.dotStuffed(body)
        #expect(wire.hasSuffix("\r\n..hidden\r\n..\r\n.\r\n"), "the text's last line, then the lone dot: \(wire.suffix(30).debugDescription)")
    }

    @Test func everyLineOfAWrittenMessageIsCRLFAndShort() {
        let long = String(repeating: "Wörter und mehr ", count: 200)
        let written = SMTPMessageWriter(fromAddress: "a@b.example", fromName: "Ä").write(
            Self.message(subject: long, body: long, html: "<p>" + long + "</p>"), date: Self.date)
        #expect(!written.replacingOccurrences(of: "\r\n", with: "").contains("\n"))
        #expect(!written.replacingOccurrences(of: "\r\n", with: "").contains("\r"))
        #expect(written.components(separatedBy: "\r\n").allSatisfy { $0.utf8.count <= 78 && $0.unicodeScalars.allSatisfy(\.isASCII) })
    }

    static func decodeWords(_ text: String) -> String {
        text.split(separator: " ").map { word -> String in
            let payload = word.dropFirst("=?UTF-8?B?".count).dropLast(2)
            return String(decoding: Data(base64Encoded: String(payload)) ?? Data(), as: UTF8.self)
        }.joined()
    }

    static func decodeQuotedPrintable(_ text: String) -> String {
        let utf8 = Array(text.replacingOccurrences(of: "=\r\n", with: "").utf8)
        var bytes: [UInt8] = []
        var position = 0
        while position < utf8.count {
            if utf8[position] == UInt8(ascii: "="), position + 2 < utf8.count,
               let byte = UInt8(String(decoding: utf8[position + 1...position + 2], as: UTF8.self), radix: 16) {
                bytes.append(byte)
                position += 3
            } else {
                bytes.append(utf8[position])
                position += 1
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
