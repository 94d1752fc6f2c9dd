import Foundation

/// The encodings an email needs to carry any text over a relay that only promises 7-bit lines
/// of at most 998 characters: quoted-printable bodies (RFC 2045 §6.7), encoded words in headers
/// (RFC 2047) and the transparency of the DATA command (dot-stuffing, RFC 5321 §4.5.2).
public enum MIMEEncoding {
    /// `text` in quoted-printable, CRLF line breaks, no line longer than 76 characters. Line
    /// breaks of any kind in `text` become CRLF; bytes outside printable ASCII, `=`, and a space
    /// or tab at the end of a line are written `=XX`.
    public static func quotedPrintable(_ text: String) -> String {
        var output: [String] = []
        for line in lines(of: text) {
            var encoded = ""
            var current = ""
            let bytes = Array(line.utf8)
            for (index, byte) in bytes.enumerated() {
                let last = index == bytes.count - 1
                let literal = (33...126).contains(byte) && byte != UInt8(ascii: "=")
                    || (byte == 0x20 || byte == 0x09) && !last
                let piece = literal ? String(UnicodeScalar(byte)) : String(format: "=%02X", byte)
                // A soft break (`=` at the end) keeps each written line at 76 characters at most.
                if current.count + piece.count > 75 {
                    encoded += current + "=\r\n"
                    current = ""
                }
                current += piece
            }
            output.append(encoded + current)
        }
        return output.joined(separator: "\r\n")
    }

    /// A header value that is plain ASCII stays as it is; otherwise it is written as encoded
    /// words (`=?UTF-8?B?…?=`), each at most 64 characters, never splitting a character, joined by
    /// folding (CRLF and a space). Line breaks in `text` become spaces: a header is one field.
    public static func headerText(_ text: String) -> String {
        let flat = text.replacingOccurrences(of: "\r\n", with: " ").map { $0.isNewline ? " " : String($0) }.joined()
        if flat.unicodeScalars.allSatisfy({ (32...126).contains($0.value) }) && !flat.contains("=?") && flat.count <= 900 {
            return flat
        }
        return encodedWords(flat)
    }

    /// A display name in a `From` header: as it is when it is a plain atom sequence, quoted when it
    /// holds specials, encoded words when it is not ASCII.
    public static func displayName(_ name: String) -> String {
        let flat = name.map { $0.isNewline ? " " : String($0) }.joined()
        guard flat.unicodeScalars.allSatisfy({ (32...126).contains($0.value) }), !flat.contains("=?") else { return encodedWords(flat) }
        let specials = CharacterSet(charactersIn: "()<>[]:;@\\,.\"")
        guard flat.unicodeScalars.contains(where: specials.contains) else { return flat }
        return "\"" + flat.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }

    /// `text` as base64 encoded words, folded one to a line. RFC 2047 allows 75 characters a word;
    /// 39 bytes of text (52 of base64, 64 with the markers) keep `Subject: ` and its first word
    /// within the 78 characters a header line should not exceed.
    public static func encodedWords(_ text: String) -> String {
        var words: [[UInt8]] = []
        var chunk: [UInt8] = []
        for character in text {
            let bytes = Array(String(character).utf8)
            if chunk.count + bytes.count > 39, !chunk.isEmpty {
                words.append(chunk)
                chunk = []
            }
            chunk += bytes
        }
        if !chunk.isEmpty || words.isEmpty { words.append(chunk) }
        return words.map { "=?UTF-8?B?" + Data($0).base64EncodedString() + "?=" }.joined(separator: "\r\n ")
    }

    /// The message as the DATA command carries it: a line that starts with `.` gets another
    /// (the relay removes it), and the end-of-data line (`.`) follows. The line break that ends
    /// the message's last line is the one before the `.`, so a message that already ends in one
    /// gains no empty line.
    public static func dotStuffed(_ message: String) -> String {
        var lines = lines(of: message)
        if lines.count > 1, lines.last == "" { lines.removeLast() }
        return lines.map { $0.hasPrefix(".") ? "." + $0 : $0 }.joined(separator: "\r\n") + "\r\n.\r\n"
    }

    /// The lines of `text`, split at CRLF, LF or CR.
    static func lines(of text: String) -> [String] {
        text.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n")
            .split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }
}
